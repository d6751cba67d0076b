// Hardhat against a running chaind dev node (tests/test_reference_suites.py sets the environment): the network
// `chaind` at CHAIND_RPC with chain id CHAIND_CHAIN_ID and the funded keys CHAIND_KEYS (comma separated).
require('@nomicfoundation/hardhat-chai-matchers');
require('@nomicfoundation/hardhat-ethers');
const {subtask} = require('hardhat/config');
const {TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD} = require('hardhat/builtin-tasks/task-names');

// npm's solc (solcjs) in place of Hardhat's download of a compiler build, which needs a host besides the registry.
subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async ({solcVersion}) => {
  const solc = require('solc');
  if (!solc.version().startsWith(`${solcVersion}+`)) throw new Error(`npm's solc is ${solc.version()}, not ${solcVersion}`);
  return {compilerPath: require.resolve('solc/soljson.js'), isSolcJs: true, version: solcVersion,
    longVersion: solc.version()};
});

module.exports = {
  solidity: {version: '0.8.28', settings: {optimizer: {enabled: true, runs: 200}}},
  networks: {
    chaind: {
      url: process.env.CHAIND_RPC || 'http://127.0.0.1:8545',
      chainId: Number(process.env.CHAIND_CHAIN_ID || 9000),
      accounts: (process.env.CHAIND_KEYS || '').split(',').filter(Boolean),
    },
  },
  mocha: {timeout: 120000},
};
