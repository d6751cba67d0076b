// Compile one Solidity file with npm's solc (optimizer on, 200 runs); print {abi, bytecode, version} of the
// contract named as the file.
const fs = require('fs');
const path = require('path');
const solc = require('solc');

const file = process.argv[2];
const name = path.basename(file, '.sol');
const input = {
  language: 'Solidity',
  sources: {[name + '.sol']: {content: fs.readFileSync(file, 'utf8')}},
  settings: {optimizer: {enabled: true, runs: 200}, outputSelection: {'*': {'*': ['abi', 'evm.bytecode.object']}}},
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (out.errors || []).filter((e) => e.severity === 'error');
if (errors.length) {
  for (const e of errors) console.error(e.formattedMessage);
  process.exit(1);
}
const compiled = out.contracts[name + '.sol'][name];
console.log(JSON.stringify({abi: compiled.abi, bytecode: compiled.evm.bytecode.object, version: solc.version()}));
