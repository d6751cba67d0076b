// One job for @cosmjs/tendermint-rpc: read {"url", "calls"} as JSON on stdin, print each call's decoded
// answer as JSON (bigints and bytes as text); a client error exits 1 with its message on stderr.
"use strict";

const { connectComet } = require("@cosmjs/tendermint-rpc");
const { toHex } = require("@cosmjs/encoding");

function plain(value) {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Uint8Array) return toHex(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const job = JSON.parse(Buffer.concat(chunks).toString());
  const client = await connectComet(job.url);
  const out = {};
  for (const call of job.calls) out[call] = plain(await client[call]());
  client.disconnect();
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e));
  process.exit(1);
});
