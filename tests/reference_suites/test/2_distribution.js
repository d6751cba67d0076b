// cosmos/evm's precompiles suite, test/2_distribution: the withdraw address, withdrawing and claiming rewards,
// the validator's commission, funding the community pool and a validator's rewards pool, and the validator
// queries, through the distribution precompile from an EOA.
const {expect} = require('chai');
const hre = require('hardhat');
const {CHAIN, FIRST_PAGE, GAS_LIMIT, contract, findEvent, mined, signers, bech32Of} = require('../common');

const WITHDRAWER = '0x498B5AeC5D439b733dC2F58AB489783A23FB26dA';   // cosmos/evm's case's fresh address
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const amountOf = (decCoins, denom) => (decCoins.find((c) => c.denom === denom) || {amount: 0n}).amount;

describe('distribution precompile', function () {
  let distribution, staking, signer, operator;

  before(async function () {
    ({signer, operator} = await signers());
    distribution = await contract('distribution');
    staking = await contract('staking');
  });

  it('sets the withdraw address with the SetWithdrawerAddress event', async function () {
    const withdrawer = await bech32Of(CHAIN.prefix, WITHDRAWER);
    const evt = findEvent(await mined(distribution.setWithdrawAddress(signer.address, withdrawer,
      {gasLimit: GAS_LIMIT})), distribution.interface, 'SetWithdrawerAddress');
    expect(evt.args.caller).to.equal(signer.address);
    expect(evt.args.withdrawerAddress).to.equal(withdrawer);
    expect(await distribution.delegatorWithdrawAddress(signer.address)).to.equal(withdrawer);
  });

  it('withdraws a delegation reward to the withdraw address', async function () {
    await mined(staking.delegate(signer.address, CHAIN.validator, hre.ethers.parseEther('0.001'),
      {gasLimit: GAS_LIMIT}));
    await sleep(5000);
    const [current] = await distribution.delegationRewards(signer.address, CHAIN.validator);
    const before = await hre.ethers.provider.getBalance(WITHDRAWER);
    const receipt = await mined(distribution.withdrawDelegatorRewards(signer.address, CHAIN.validator,
      {gasLimit: GAS_LIMIT}));
    const evt = findEvent(receipt, distribution.interface, 'WithdrawDelegatorReward');
    expect(evt.args.delegatorAddress).to.equal(signer.address);
    expect(evt.args.validatorAddress).to.equal(operator.address);
    // cosmos/evm's case asserts the withdrawn amount is above the reward read a block before: its x/mint adds
    // to the rewards every block. Here x/inflation mints once an epoch (Evmos' design), so a block between the
    // read and the withdrawal may add nothing: the amount is at least the reward read.
    expect(evt.args.amount).to.be.gte(current.amount).and.to.be.gt(0n);
    expect(await hre.ethers.provider.getBalance(WITHDRAWER)).to.equal(before + evt.args.amount);
  });

  it('claims rewards from at most one validator', async function () {
    const {rewards} = await distribution.delegationTotalRewards(signer.address);
    expect(rewards.length).to.be.gte(1);
    const before = await hre.ethers.provider.getBalance(WITHDRAWER);
    const evt = findEvent(await mined(distribution.claimRewards(signer.address, 1, {gasLimit: GAS_LIMIT})),
      distribution.interface, 'ClaimRewards');
    expect(evt.args.delegatorAddress).to.equal(signer.address);
    expect(evt.args.amount).to.be.gt(0n);
    expect(await hre.ethers.provider.getBalance(WITHDRAWER)).to.equal(before + evt.args.amount);
  });

  it('withdraws the validator commission, with the validator address as the indexed topic', async function () {
    const before = amountOf(await distribution.validatorCommission(CHAIN.validator), CHAIN.denom);
    const receipt = await mined(distribution.connect(operator).withdrawValidatorCommission(CHAIN.validator,
      {gasLimit: GAS_LIMIT}));
    const evt = findEvent(receipt, distribution.interface, 'WithdrawValidatorCommission');
    expect(evt, 'WithdrawValidatorCommission').to.exist;
    const log = receipt.logs.find((l) => l.topics[0] === evt.topic);
    expect(log.topics[1]).to.equal(hre.ethers.keccak256(hre.ethers.toUtf8Bytes(CHAIN.validator)));
    expect(evt.args.commission).to.be.gte(before);
    expect(amountOf(await distribution.validatorCommission(CHAIN.validator), CHAIN.denom)).to.be.lt(before);
  });

  it('funds the community pool', async function () {
    const coin = {denom: CHAIN.denom, amount: hre.ethers.parseEther('0.01')};
    const poolBefore = amountOf(await distribution.communityPool(), CHAIN.denom);
    const balanceBefore = await hre.ethers.provider.getBalance(signer.address);
    const receipt = await mined(distribution.fundCommunityPool(signer.address, [coin], {gasLimit: GAS_LIMIT}));
    const evt = findEvent(receipt, distribution.interface, 'FundCommunityPool');
    expect(evt.args.depositor).to.equal(signer.address);
    expect(evt.args.denom).to.equal(coin.denom);
    expect(evt.args.amount).to.equal(coin.amount);
    const fee = receipt.gasUsed * receipt.gasPrice;
    expect(await hre.ethers.provider.getBalance(signer.address)).to.equal(balanceBefore - coin.amount - fee);
    // The pool's figure is a Dec truncated to an integer.
    expect(amountOf(await distribution.communityPool(), CHAIN.denom)).to.be.gte(poolBefore + coin.amount);
  });

  it("deposits into a validator's rewards pool", async function () {
    const coin = {denom: CHAIN.denom, amount: hre.ethers.parseEther('0.01')};
    const before = amountOf(await distribution.validatorOutstandingRewards(CHAIN.validator), CHAIN.denom);
    const balanceBefore = await hre.ethers.provider.getBalance(signer.address);
    const receipt = await mined(distribution.depositValidatorRewardsPool(signer.address, CHAIN.validator, [coin],
      {gasLimit: GAS_LIMIT}));
    const evt = findEvent(receipt, distribution.interface, 'DepositValidatorRewardsPool');
    expect(evt.args.depositor).to.equal(signer.address);
    expect(evt.args.validatorAddress).to.equal(operator.address);
    expect(evt.args.denom).to.equal(coin.denom);
    expect(evt.args.amount).to.equal(coin.amount);
    const fee = receipt.gasUsed * receipt.gasPrice;
    expect(await hre.ethers.provider.getBalance(signer.address)).to.equal(balanceBefore - coin.amount - fee);
    expect(amountOf(await distribution.validatorOutstandingRewards(CHAIN.validator), CHAIN.denom))
      .to.be.gte(before + coin.amount);
  });

  it('answers the validator queries', async function () {
    // The validator the staking cases made: the signer's own.
    const valoper = await bech32Of(`${CHAIN.prefix}valoper`, signer.address);
    const info = await distribution.validatorDistributionInfo(valoper);
    expect(info.operatorAddress).to.equal(await bech32Of(CHAIN.prefix, signer.address));   // the account form
    expect(info.selfBondRewards).to.be.an('array');
    expect(info.commission).to.be.an('array');
    const [slashes, page] = await distribution.validatorSlashes(valoper, 1, 2 ** 32, FIRST_PAGE);
    expect(slashes.length).to.equal(Number(page.total));
    expect(await distribution.delegatorValidators(signer.address)).to.include(valoper);
  });
});
