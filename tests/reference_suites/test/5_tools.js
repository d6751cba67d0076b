// cosmos/evm's tests/evm-tools-compatibility: its hardhat (ethers through hardhat-ethers and chai matchers), viem
// and web3.js suites' cases, each deploying an ERC-20, minting, reading balances and Transfer logs and meeting a
// revert, against the same dev node.
const {expect} = require('chai');
const hre = require('hardhat');
const {ContractFunctionRevertedError, createPublicClient, createWalletClient, decodeAbiParameters, encodeAbiParameters,
  http} = require('viem');
const {privateKeyToAccount} = require('viem/accounts');
const Web3 = require('web3');
const {signers} = require('../common');

const RPC = process.env.CHAIND_RPC;
const CHAIN_ID = Number(process.env.CHAIND_CHAIN_ID);
const KEY = process.env.CHAIND_KEYS.split(',')[0];
const AMOUNT = 10n ** 21n;

describe('hardhat and ethers', function () {
  let token, signer, other;

  before(async function () {
    ({signer, other} = await signers());
    token = await hre.ethers.deployContract('Token');
    await token.waitForDeployment();
  });

  it('deploys, mints and transfers with events', async function () {
    expect(await token.owner()).to.equal(signer.address);
    await expect(token.mint(signer.address, AMOUNT)).to.emit(token, 'Transfer')
      .withArgs(hre.ethers.ZeroAddress, signer.address, AMOUNT);
    await expect(token.transfer(other.address, 5n)).to.changeTokenBalances(token, [signer, other], [-5n, 5n]);
  });

  it('reverts with custom errors that chai matchers decode', async function () {
    const balance = await token.balanceOf(signer.address);
    await expect(token.transfer(other.address, balance + 1n)).to.be.revertedWithCustomError(token, 'InsufficientBalance')
      .withArgs(signer.address, balance, balance + 1n);
    await expect(token.connect(other).mint(other.address, 1n)).to.be.revertedWithCustomError(token, 'NotOwner');
  });

  it('answers the provider calls ethers makes', async function () {
    const network = await hre.ethers.provider.getNetwork();
    expect(network.chainId).to.equal(BigInt(CHAIN_ID));
    expect(await hre.ethers.provider.getBalance(signer.address)).to.be.gt(0n);
    expect(await token.transfer.estimateGas(other.address, 1n)).to.be.gt(21000n);
    const block = await hre.ethers.provider.getBlock('latest');
    expect(block.number).to.be.gt(0);
    expect(block.baseFeePerGas).to.be.a('bigint');
    const fees = await hre.ethers.provider.getFeeData();
    expect(fees.maxFeePerGas).to.be.gt(0n);
    expect(await hre.ethers.provider.getCode(await token.getAddress())).to.not.equal('0x');
    const logs = await token.queryFilter(token.filters.Transfer(null, other.address));
    expect(logs.length).to.be.gte(1);
  });
});

describe('viem', function () {
  let publicClient, walletClient, account, artifact, address;

  before(async function () {
    artifact = await hre.artifacts.readArtifact('Token');
    const chain = {id: CHAIN_ID, name: 'chaind', nativeCurrency: {name: 'Chain', symbol: 'CHAIN', decimals: 18},
      rpcUrls: {default: {http: [RPC]}}};
    account = privateKeyToAccount(KEY);
    publicClient = createPublicClient({chain, transport: http(RPC)});
    walletClient = createWalletClient({account, chain, transport: http(RPC)});
    const hash = await walletClient.deployContract({abi: artifact.abi, bytecode: artifact.bytecode, args: []});
    address = (await publicClient.waitForTransactionReceipt({hash})).contractAddress;
  });

  it('gets the chain id and block number', async function () {
    expect(await publicClient.getChainId()).to.equal(CHAIN_ID);
    expect(await publicClient.getBlockNumber()).to.be.a('bigint');
  });

  it('estimates, mints, reads the tx and the balance', async function () {
    const call = {address, abi: artifact.abi, functionName: 'mint', args: [account.address, AMOUNT]};
    expect(await publicClient.estimateContractGas({...call, account})).to.be.gt(21000n);
    const hash = await walletClient.writeContract(call);
    const receipt = await publicClient.waitForTransactionReceipt({hash});
    expect(receipt.status).to.equal('success');
    const tx = await publicClient.getTransaction({hash});
    expect(tx.from.toLowerCase()).to.equal(account.address.toLowerCase());
    expect(await publicClient.readContract({address, abi: artifact.abi, functionName: 'balanceOf',
      args: [account.address]})).to.equal(AMOUNT);
    const logs = await publicClient.getContractEvents({address, abi: artifact.abi, eventName: 'Transfer',
      fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber});
    expect(logs.length).to.equal(1);
    expect(logs[0].args.value).to.equal(AMOUNT);
  });

  it('encodes and decodes ABI parameters', async function () {
    const encoded = encodeAbiParameters([{type: 'address'}, {type: 'uint256'}], [account.address, 7n]);
    expect(decodeAbiParameters([{type: 'address'}, {type: 'uint256'}], encoded)).to.deep.equal([account.address, 7n]);
  });

  it('meets the revert of a transfer above the balance', async function () {
    let error;
    try {
      await publicClient.simulateContract({address, abi: artifact.abi, functionName: 'transfer', account,
        args: [account.address, AMOUNT + 1n]});
    } catch (e) {
      error = e;
    }
    expect(error, 'simulateContract must throw').to.exist;
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
    expect(reverted.data.errorName).to.equal('InsufficientBalance');
    expect(reverted.data.args).to.deep.equal([account.address, AMOUNT, AMOUNT + 1n]);
  });
});

describe('web3.js', function () {
  let web3, contract, from;

  before(async function () {
    web3 = new Web3(RPC);
    from = web3.eth.accounts.wallet.add(KEY).address;
    const artifact = await hre.artifacts.readArtifact('Token');
    contract = await new web3.eth.Contract(artifact.abi).deploy({data: artifact.bytecode})
      .send({from, gas: 2_000_000});
  });

  it('gets the chain id and the accounts', async function () {
    expect(await web3.eth.getChainId()).to.equal(CHAIN_ID);
    const accounts = await web3.eth.getAccounts();
    expect(accounts.length).to.be.gte(3);
  });

  it('reads, mints, reads the balance and the Transfer events', async function () {
    expect(await contract.methods.name().call()).to.equal('Token Example');
    const receipt = await contract.methods.mint(from, AMOUNT.toString()).send({from, gas: 200_000});
    expect(receipt.status).to.equal(true);
    expect(await contract.methods.balanceOf(from).call()).to.equal(AMOUNT.toString());
    const events = await contract.getPastEvents('Transfer', {fromBlock: receipt.blockNumber,
      toBlock: receipt.blockNumber});
    expect(events.length).to.equal(1);
    expect(events[0].returnValues.value).to.equal(AMOUNT.toString());
  });

  it('fails a transfer above the balance', async function () {
    let error;
    try {
      await contract.methods.transfer(from, (AMOUNT + 1n).toString()).send({from, gas: 200_000});
    } catch (e) {
      error = e;
    }
    expect(error, 'the send must fail').to.exist;
  });
});
