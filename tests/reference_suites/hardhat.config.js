// Hardhat against a running chaind dev node (tests/test_reference_suites.py sets the environment): the network
// `chaind` at CHAIND_RPC with chain id CHAIND_CHAIN_ID and the funded keys CHAIND_KEYS (comma separated).
require('@nomicfoundation/hardhat-chai-matchers');
require('@nomicfoundation/hardhat-ethers');

module.exports = {
  solidity: '0.8.28',
  networks: {
    chaind: {
      url: process.env.CHAIND_RPC || 'http://127.0.0.1:8545',
      chainId: Number(process.env.CHAIND_CHAIN_ID || 9000),
      accounts: (process.env.CHAIND_KEYS || '').split(',').filter(Boolean),
    },
  },
  mocha: {timeout: 120000},
};
