#!/usr/bin/env node
// solc's command line as forge calls it (`--version`; `--standard-json` on stdin with import paths), answered by
// npm's solc (solcjs): forge would otherwise download a native build from a host besides the registry.
const fs = require('fs');
const path = require('path');
const solc = require('solc');

const args = process.argv.slice(2);
if (args.includes('--version')) {
  console.log('solc, the solidity compiler commandline interface');
  console.log(`Version: ${solc.version().replace('Emscripten.clang', 'Linux.g++')}`);
  process.exit(0);
}
const roots = [];
for (let i = 0; i < args.length; i++) {
  if (['--base-path', '--include-path', '--allow-paths'].includes(args[i])) roots.push(...args[i + 1].split(','));
}
const findImports = (name) => {
  for (const root of ['.', ...roots]) {
    const file = path.resolve(root, name);
    if (fs.existsSync(file)) return {contents: fs.readFileSync(file, 'utf8')};
  }
  return {error: `File not found: ${name}`};
};
process.stdout.write(solc.compile(fs.readFileSync(0, 'utf8'), {import: findImports}));
