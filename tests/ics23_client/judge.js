// Reads {cases: [{spec: "iavl"|"tendermint", root, proof, key, value (hex; value null for absence)}]} on stdin and
// prints, for each, whether @confio/ics23's verifyMembership / verifyNonMembership accepts it (a throw is a no).
const ics23 = require("@confio/ics23");
const { fromHex } = require("@cosmjs/encoding");

const SPECS = { iavl: ics23.iavlSpec, tendermint: ics23.tendermintSpec };

function judge({ spec, root, proof, key, value }) {
  try {
    const decoded = ics23.ics23.CommitmentProof.decode(fromHex(proof));
    return value === null
      ? ics23.verifyNonMembership(decoded, SPECS[spec], fromHex(root), fromHex(key))
      : ics23.verifyMembership(decoded, SPECS[spec], fromHex(root), fromHex(key), fromHex(value));
  } catch (e) {
    return false;
  }
}

async function main() {
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  process.stdout.write(JSON.stringify(JSON.parse(input).cases.map(judge)));
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
