// One job for @metamask/eth-sig-util (what MetaMask's eth_signTypedData_v4 runs): read {"privateKey" (hex),
// "typedData"} as JSON on stdin, print {"signature": 0x... (65 bytes)}.
"use strict";

const { SignTypedDataVersion, signTypedData } = require("@metamask/eth-sig-util");

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const job = JSON.parse(Buffer.concat(chunks).toString());
  const signature = signTypedData({ privateKey: Buffer.from(job.privateKey, "hex"), data: job.typedData,
                                    version: SignTypedDataVersion.V4 });
  process.stdout.write(JSON.stringify({ signature }));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e));
  process.exit(1);
});
