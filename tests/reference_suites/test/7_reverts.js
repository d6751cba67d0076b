// cosmos/evm's revert_cases suite (standard_revert_cases and precompile_revert_cases): every revert answers its
// reason as ABI-encoded data to eth_call (Error(string) or Panic(uint256)), a reverted tx leaves a status-0 receipt
// whose reason a replay by eth_call reads, an out-of-gas tx uses its whole gas limit, and a precompile that reverts
// inside a contract gives cosmos/evm's text.
const {expect} = require('chai');
const hre = require('hardhat');
const {CHAIN, GAS_LIMIT, mined} = require('../common');

const LOW_GAS_LIMIT = 100_000;
const PANIC = {assert: 0x01n, divisionByZero: 0x12n, outOfBounds: 0x32n};

// The reason in revert data: Error(string)'s text, or "Panic(<code>)".
function reasonOf(data) {
  const coder = hre.ethers.AbiCoder.defaultAbiCoder();
  if (data.startsWith('0x08c379a0')) return coder.decode(['string'], '0x' + data.slice(10))[0];
  if (data.startsWith('0x4e487b71')) return `Panic(${coder.decode(['uint256'], '0x' + data.slice(10))[0]})`;
  throw new Error(`not a revert reason: ${data}`);
}

// The revert data eth_call answers for `request`.
async function callReason(request) {
  try {
    await hre.ethers.provider.call(request);
  } catch (error) {
    return reasonOf(error.data);
  }
  throw new Error('the call did not revert');
}

// Sends a tx that must fail; its receipt and the reason a replay at its block's parent answers.
async function failed(txPromise) {
  const tx = await txPromise;
  let receipt;
  try {
    await tx.wait();
  } catch (error) {
    receipt = error.receipt;
  }
  expect(receipt, 'the tx must fail').to.exist;
  expect(receipt.status).to.equal(0);
  let reason = null;
  try {
    await hre.ethers.provider.call({to: tx.to, from: tx.from, data: tx.data, gasLimit: tx.gasLimit,
      blockTag: receipt.blockNumber - 1});
  } catch (error) {
    reason = error.data && error.data !== '0x' ? reasonOf(error.data) : null;
  }
  return {tx, receipt, reason};
}

describe('revert cases', function () {
  let reverter, wrapper, badValidator;

  before(async function () {
    reverter = await hre.ethers.deployContract('Reverter');
    wrapper = await hre.ethers.deployContract('Reverter');
    await Promise.all([reverter.waitForDeployment(), wrapper.waitForDeployment()]);
    badValidator = CHAIN.validator.slice(0, -7) + 'invalid';
  });

  it('answers a revert string and a require message to eth_call and in the receipt', async function () {
    const to = await reverter.getAddress();
    const data = reverter.interface.encodeFunctionData('standardRevert', ['custom message']);
    expect(await callReason({to, data})).to.equal('custom message');
    expect((await failed(reverter.standardRevert('Test message', {gasLimit: GAS_LIMIT}))).reason).to.equal('Test message');
    expect((await failed(reverter.requireBelow(10, 5, {gasLimit: GAS_LIMIT}))).reason).to.equal('Value exceeds threshold');
    await mined(reverter.requireBelow(1, 5, {gasLimit: GAS_LIMIT}));
  });

  it("answers Solidity's panics", async function () {
    expect((await failed(reverter.assertFails({gasLimit: GAS_LIMIT}))).reason).to.equal(`Panic(${PANIC.assert})`);
    const to = await reverter.getAddress();
    expect(await callReason({to, data: reverter.interface.encodeFunctionData('divide', [1, 0])}))
      .to.equal(`Panic(${PANIC.divisionByZero})`);
    expect((await failed(reverter.divideTx(1, 0, {gasLimit: GAS_LIMIT}))).reason).to.equal(`Panic(${PANIC.divisionByZero})`);
    expect((await failed(reverter.outOfBounds(3, {gasLimit: GAS_LIMIT}))).reason).to.equal(`Panic(${PANIC.outOfBounds})`);
  });

  it('carries a reason out of nested and wrapped calls', async function () {
    expect((await failed(reverter.nestedRevert({gasLimit: GAS_LIMIT}))).reason).to.equal('Internal function revert');
    expect((await failed(wrapper.wrapped(await reverter.getAddress(), 'Wrapper test', {gasLimit: GAS_LIMIT}))).reason)
      .to.equal('Wrapper test');
  });

  it('uses the whole gas limit when out of gas', async function () {
    const {receipt} = await failed(reverter.burnGas(1000, {gasLimit: LOW_GAS_LIMIT}));
    expect(receipt.gasUsed).to.equal(BigInt(LOW_GAS_LIMIT));
  });

  it("answers cosmos/evm's text when a precompile reverts inside a contract", async function () {
    const counter = await reverter.counter();
    for (const send of [
      () => reverter.stakingRevert(badValidator, {gasLimit: GAS_LIMIT}),
      () => reverter.distributionRevert(badValidator, {gasLimit: GAS_LIMIT}),
      () => reverter.queryThenStakingRevert(badValidator, {gasLimit: GAS_LIMIT}),
      () => reverter.stakingRevertRethrown(badValidator, {gasLimit: GAS_LIMIT}),
    ]) {
      const {receipt, reason} = await failed(send());
      expect(receipt.logs).to.deep.equal([]);
      expect(reason).to.contain('invalid validator address');
    }
    expect(await reverter.counter()).to.equal(counter);     // nothing of a reverted tx is kept
  });

  // As cosmos/evm's precompile OutOfGas cases: the contract's own work before the precompile call exhausts the gas.
  it('uses the whole gas limit when a contract runs out of gas on its way to a precompile call', async function () {
    const {receipt} = await failed(reverter.burnThenStake(3, CHAIN.validator, {gasLimit: 70_000}));
    expect(receipt.gasUsed).to.equal(70_000n);
  });
});
