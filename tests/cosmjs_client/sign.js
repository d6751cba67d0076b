// One job for @cosmjs/stargate with an amino-only signer (Secp256k1HdWallet signs SIGN_MODE_LEGACY_AMINO_JSON):
// read {"url", "mnemonic", "prefix", "gasPrice", "to", "send", "validator", "delegate", "memo"} as JSON on stdin,
// send and delegate with fee "auto" (a simulation first), print each DeliverTxResponse as JSON.
"use strict";

const { Secp256k1HdWallet } = require("@cosmjs/amino");
const { GasPrice, SigningStargateClient } = require("@cosmjs/stargate");

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const job = JSON.parse(Buffer.concat(chunks).toString());
  const wallet = await Secp256k1HdWallet.fromMnemonic(job.mnemonic, { prefix: job.prefix });
  const [{ address }] = await wallet.getAccounts();
  const client = await SigningStargateClient.connectWithSigner(job.url, wallet,
    { gasPrice: GasPrice.fromString(job.gasPrice) });
  const plain = (r) => ({ code: r.code, height: r.height, transactionHash: r.transactionHash,
                          gasUsed: String(r.gasUsed), gasWanted: String(r.gasWanted), rawLog: r.rawLog });
  const out = { address };
  out.send = plain(await client.sendTokens(address, job.to, [job.send], "auto", job.memo));
  out.delegate = plain(await client.delegateTokens(address, job.validator, job.delegate, "auto"));
  client.disconnect();
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e));
  process.exit(1);
});
