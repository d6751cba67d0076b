// One job for @cosmjs/stargate: read {"url", "address"} as JSON on stdin, print the account's type URL (from the
// auth query) and what StargateClient.getAccount (accountFromAny) decodes of it, as JSON.
"use strict";

const { QueryClient, StargateClient, setupAuthExtension, accountFromAny } = require("@cosmjs/stargate");
const { connectComet } = require("@cosmjs/tendermint-rpc");

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const job = JSON.parse(Buffer.concat(chunks).toString());
  const comet = await connectComet(job.url);
  const query = QueryClient.withExtensions(comet, setupAuthExtension);
  const any = await query.auth.account(job.address);
  const decoded = accountFromAny(any);
  const client = await StargateClient.connect(job.url);
  const account = await client.getAccount(job.address);
  client.disconnect();
  comet.disconnect();
  process.stdout.write(JSON.stringify({
    typeUrl: any.typeUrl, decoded: { address: decoded.address, accountNumber: String(decoded.accountNumber),
                                     sequence: String(decoded.sequence) },
    account: { address: account.address, accountNumber: String(account.accountNumber),
               sequence: String(account.sequence),
               pubkeyType: account.pubkey ? account.pubkey.type : null },
  }));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e));
  process.exit(1);
});
