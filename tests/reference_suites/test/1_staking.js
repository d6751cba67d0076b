// cosmos/evm's precompiles suite, test/1_staking: createValidator and editValidator, delegate, undelegate and
// cancelUnbondingDelegation, redelegate, each through the staking precompile from an EOA, with its events and
// the state its queries read after.
const {expect} = require('chai');
const hre = require('hardhat');
const {CHAIN, FIRST_PAGE, GAS_LIMIT, contract, findEvent, mined, signers, bech32Of} = require('../common');

describe('staking precompile', function () {
  let staking, signer, operator, newValidator;
  // The entries of an unbonding delegation by index: a Result's `entries` is Array's method.
  const entriesOf = async (delegator) => (await staking.unbondingDelegation(delegator, CHAIN.validator))[2];

  before(async function () {
    ({signer, operator} = await signers());
    staking = await contract('staking');
    newValidator = await bech32Of(`${CHAIN.prefix}valoper`, signer.address);
  });

  it('creates a validator and edits its description', async function () {
    const description = {moniker: 'TestValidator', identity: 'id123', website: 'https://example.com',
      securityContact: 'sec@example.com', details: 'unit-test validator'};
    const rates = {rate: hre.ethers.parseUnits('0.05', 18), maxRate: hre.ethers.parseUnits('0.20', 18),
      maxChangeRate: hre.ethers.parseUnits('0.01', 18)};
    const pubkey = 'nfJ0axJC9dhta1MAE1EBFaVdxxkYzxYrBaHuJVjG//M=';
    const deposit = hre.ethers.parseEther('1');
    const receipt = await mined(staking.createValidator(description, rates, 1, signer.address, pubkey, deposit,
      {gasLimit: GAS_LIMIT}));
    const created = findEvent(receipt, staking.interface, 'CreateValidator');
    expect(created.args.validatorAddress).to.equal(signer.address);
    expect(created.args.value).to.equal(deposit);

    const info = await staking.validator(signer.address);
    expect(info.operatorAddress.toLowerCase()).to.equal(signer.address.toLowerCase());
    expect(info.consensusPubkey).to.equal(pubkey);
    expect(info.jailed).to.equal(false);
    expect(info.status).to.equal(3n);       // bonded at the end of the block
    expect(info.tokens).to.equal(deposit);
    expect(info.delegatorShares).to.be.gt(0n);
    expect(info.description.moniker).to.equal(description.moniker);
    expect(info.description.details).to.equal(description.details);
    expect(info.unbondingHeight).to.equal(0n);
    expect(info.unbondingTime).to.equal(0n);
    expect(info.commission).to.equal(rates.rate);
    expect(info.minSelfDelegation).to.equal(1n);

    const keep = '[do-not-modify]';
    const edit = {moniker: keep, identity: keep, website: keep, securityContact: keep,
      details: 'updated unit-test validator'};
    const edited = findEvent(await mined(staking.editValidator(edit, signer.address, -1, -1, {gasLimit: GAS_LIMIT})),
      staking.interface, 'EditValidator');
    expect(edited.args.validatorAddress).to.equal(signer.address);
    expect(edited.args.commissionRate).to.equal(-1n);
    expect(edited.args.minSelfDelegation).to.equal(-1n);
    const after = await staking.validator(signer.address);
    expect(after.description.details).to.equal(edit.details);
    expect(after.description.moniker).to.equal(description.moniker);
    expect(after.description.website).to.equal(description.website);

    // cosmos/evm's case asserts validators[1] is the new one: its operator address sorts after its genesis
    // validator's. The SDK pages validators in operator address order, which is what holds on any chain.
    const {validators} = await staking.validators('', FIRST_PAGE);
    const operators = validators.map((v) => v.operatorAddress.toLowerCase());
    expect(operators).to.have.length.gte(2);
    expect(operators).to.include(signer.address.toLowerCase());
    expect([...operators].sort()).to.deep.equal(operators);
  });

  it('delegates with the Delegate event and precision-adjusted shares', async function () {
    const amount = hre.ethers.parseEther('0.001');
    const before = await staking.delegation(signer.address, CHAIN.validator);
    const evt = findEvent(await mined(staking.delegate(signer.address, CHAIN.validator, amount, {gasLimit: GAS_LIMIT})),
      staking.interface, 'Delegate');
    expect(evt.args.delegatorAddress).to.equal(signer.address);
    expect(evt.args.validatorAddress).to.equal(operator.address);
    expect(evt.args.amount).to.equal(amount);
    expect(evt.args.newShares).to.equal(amount * 10n ** 18n);
    const after = await staking.delegation(signer.address, CHAIN.validator);
    expect(after.balance.amount).to.equal(before.balance.amount + amount);
    expect(after.balance.denom).to.equal(CHAIN.denom);
  });

  it('undelegates, then cancels the unbonding entry', async function () {
    const amount = hre.ethers.parseEther('0.001');
    await mined(staking.delegate(signer.address, CHAIN.validator, amount, {gasLimit: GAS_LIMIT}));
    const entriesBefore = (await entriesOf(signer.address)).length;
    const unbond = findEvent(await mined(staking.undelegate(signer.address, CHAIN.validator, amount,
      {gasLimit: GAS_LIMIT})), staking.interface, 'Unbond');
    expect(unbond.args.delegatorAddress).to.equal(signer.address);
    expect(unbond.args.validatorAddress).to.equal(operator.address);
    expect(unbond.args.amount).to.equal(amount);
    expect(unbond.args.completionTime).to.be.gt(0n);
    const entries = await entriesOf(signer.address);
    expect(entries.length).to.equal(entriesBefore + 1);
    expect(entries[0].balance).to.equal(amount);
    const height = entries[0].creationHeight;
    const cancel = findEvent(await mined(staking.cancelUnbondingDelegation(signer.address, CHAIN.validator, amount,
      height, {gasLimit: GAS_LIMIT})), staking.interface, 'CancelUnbondingDelegation');
    expect(cancel.args.delegatorAddress).to.equal(signer.address);
    expect(cancel.args.validatorAddress).to.equal(operator.address);
    expect(cancel.args.amount).to.equal(amount);
    expect(cancel.args.creationHeight).to.equal(height);
    expect((await entriesOf(signer.address)).length).to.equal(entriesBefore);
  });

  it('redelegates to the new validator', async function () {
    const amount = hre.ethers.parseEther('0.001');
    const srcBefore = await staking.delegation(signer.address, CHAIN.validator);
    const dstBefore = await staking.delegation(signer.address, newValidator);
    const evt = findEvent(await mined(staking.redelegate(signer.address, CHAIN.validator, newValidator, amount,
      {gasLimit: GAS_LIMIT})), staking.interface, 'Redelegate');
    expect(evt.args.delegatorAddress).to.equal(signer.address);
    expect(evt.args.validatorSrcAddress).to.equal(operator.address);
    expect(evt.args.validatorDstAddress).to.equal(signer.address);
    expect(evt.args.amount).to.equal(amount);
    expect(evt.args.completionTime).to.be.gt(0n);
    const srcAfter = await staking.delegation(signer.address, CHAIN.validator);
    const dstAfter = await staking.delegation(signer.address, newValidator);
    expect(srcAfter.balance.amount).to.equal(srcBefore.balance.amount - amount);
    expect(dstAfter.balance.amount).to.equal(dstBefore.balance.amount + amount);
    const expectedSrcShares = srcBefore.balance.amount === amount ? 0n : srcBefore.shares - amount * 10n ** 18n;
    expect(srcAfter.shares).to.equal(expectedSrcShares);
    const redelegation = await staking.redelegation(signer.address, CHAIN.validator, newValidator);
    expect(redelegation.delegatorAddress).to.equal(await bech32Of(CHAIN.prefix, signer.address));
    expect(redelegation.validatorSrcAddress).to.equal(CHAIN.validator);
    expect(redelegation.validatorDstAddress).to.equal(newValidator);
    expect(redelegation[3][0].initialBalance).to.equal(amount);
    expect(redelegation[3][0].sharesDst).to.equal(amount * 10n ** 18n);
  });
});
