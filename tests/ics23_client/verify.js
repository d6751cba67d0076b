// Reads {rpc, checks: [{store, key (hex), height}]} on stdin; for each check prints whether
// @cosmjs/stargate's queryStoreVerified and @confio/ics23's verify(Non)Membership accept the node's proof.
const { QueryClient } = require("@cosmjs/stargate");
const { connectComet } = require("@cosmjs/tendermint-rpc");
const ics23 = require("@confio/ics23");
const { fromHex, toHex, toAscii } = require("@cosmjs/encoding");

async function check(client, comet, { store, key, height }) {
  const queryKey = fromHex(key);
  const out = { store, key, height };
  try {
    const verified = await client.queryStoreVerified(store, queryKey, height);
    out.cosmjs = { ok: true, value: toHex(verified.value), height: verified.height };
  } catch (e) {
    out.cosmjs = { ok: false, error: String(e && e.message || e) };
  }
  try {
    const answer = await comet.abciQuery({ path: `/store/${store}/key`, data: queryKey, prove: true, height });
    const [iavlOp, simpleOp] = answer.proof.ops;
    const iavl = ics23.ics23.CommitmentProof.decode(iavlOp.data);
    const simple = ics23.ics23.CommitmentProof.decode(simpleOp.data);
    const storeRoot = simple.exist.value;
    const header = (await comet.blockchain(answer.height + 1, answer.height + 1)).blockMetas[0].header;
    const appHash = header.appHash;
    const inStore = answer.value && answer.value.length
      ? ics23.verifyMembership(iavl, ics23.iavlSpec, storeRoot, queryKey, answer.value)
      : ics23.verifyNonMembership(iavl, ics23.iavlSpec, storeRoot, queryKey);
    const inApp = ics23.verifyMembership(simple, ics23.tendermintSpec, appHash, toAscii(store), storeRoot);
    out.ics23 = { ok: inStore && inApp, member: !!(answer.value && answer.value.length), appHash: toHex(appHash) };
  } catch (e) {
    out.ics23 = { ok: false, error: String(e && e.message || e) };
  }
  return out;
}

async function main() {
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  const { rpc, checks } = JSON.parse(input);
  const comet = await connectComet(rpc);
  const client = new QueryClient(comet);
  const results = [];
  for (const c of checks) results.push(await check(client, comet, c));
  comet.disconnect();
  process.stdout.write(JSON.stringify(results));
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
