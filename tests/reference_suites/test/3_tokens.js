// cosmos/evm's precompiles suite, test/3_erc20, 9_werc20 and bank: the EVM coin's ERC-20 / WERC20 at
// 0xEeee...EEeE (metadata, transfer, approve and transferFrom, deposit and withdraw with their events, the coin
// staying where it is) and the bank precompile's balances and supplies.
const {expect} = require('chai');
const hre = require('hardhat');
const {ADDRESSES, CHAIN, GAS_LIMIT, contract, findEvent, mined, signers} = require('../common');

describe('the EVM coin as ERC-20 and WERC20', function () {
  let token, signer, other, operator;

  before(async function () {
    ({signer, other, operator} = await signers());
    token = await contract('werc20');
  });

  it('answers the metadata, supply, balance and allowance', async function () {
    expect(await token.name()).to.contain(CHAIN.tokenName);
    expect(await token.symbol()).to.contain(CHAIN.tokenSymbol);
    expect(await token.decimals()).to.equal(18n);
    expect(await token.totalSupply()).to.be.gt(0n);
    expect(await token.balanceOf(signer.address)).to.equal(await hre.ethers.provider.getBalance(signer.address));
    expect(await token.allowance(signer.address, operator.address)).to.equal(0n);
  });

  it('transfers, approves and transfers from, with their events', async function () {
    const amount = hre.ethers.parseEther('0.5');
    const before = await token.balanceOf(other.address);
    const sent = findEvent(await mined(token.transfer(other.address, amount)), token.interface, 'Transfer');
    expect([sent.args.from, sent.args.to, sent.args.value]).to.deep.equal([signer.address, other.address, amount]);
    expect(await token.balanceOf(other.address)).to.equal(before + amount);

    const approved = findEvent(await mined(token.approve(operator.address, amount)), token.interface, 'Approval');
    expect([approved.args.owner, approved.args.spender, approved.args.value])
      .to.deep.equal([signer.address, operator.address, amount]);
    const otherBefore = await token.balanceOf(other.address);
    const moved = findEvent(await mined(token.connect(operator).transferFrom(signer.address, other.address, amount)),
      token.interface, 'Transfer');
    expect([moved.args.from, moved.args.to, moved.args.value]).to.deep.equal([signer.address, other.address, amount]);
    expect(await token.balanceOf(other.address)).to.equal(otherBefore + amount);
    expect(await token.allowance(signer.address, operator.address)).to.equal(0n);
  });

  it('deposits by deposit() and by a plain transfer: Deposit logged, the coin stays with the sender', async function () {
    for (const send of [(value) => token.deposit({value, gasLimit: GAS_LIMIT}),
      (value) => signer.sendTransaction({to: ADDRESSES.werc20, value, gasLimit: GAS_LIMIT})]) {
      const value = hre.ethers.parseEther('1');
      const before = await hre.ethers.provider.getBalance(signer.address);
      const held = await hre.ethers.provider.getBalance(ADDRESSES.werc20);
      const receipt = await mined(send(value));
      const evt = findEvent(receipt, token.interface, 'Deposit');
      expect(evt.args.dst).to.equal(signer.address);
      expect(evt.args.wad).to.equal(value);
      expect(await hre.ethers.provider.getBalance(ADDRESSES.werc20)).to.equal(held);
      expect(await hre.ethers.provider.getBalance(signer.address))
        .to.equal(before - receipt.gasUsed * receipt.gasPrice);
    }
  });

  it('withdraws any amount up to the balance, zero included, with the Withdrawal event', async function () {
    for (const wad of [hre.ethers.parseEther('1'), hre.ethers.parseEther('0.05'), 0n]) {
      const before = await hre.ethers.provider.getBalance(signer.address);
      const receipt = await mined(token.withdraw(wad, {gasLimit: GAS_LIMIT}));
      const evt = findEvent(receipt, token.interface, 'Withdrawal');
      expect(evt.args.src).to.equal(signer.address);
      expect(evt.args.wad).to.equal(wad);
      expect(await hre.ethers.provider.getBalance(signer.address))
        .to.equal(before - receipt.gasUsed * receipt.gasPrice);
    }
  });

  it('reverts a withdrawal above the balance, as hardhat-chai-matchers read it', async function () {
    const balance = await hre.ethers.provider.getBalance(signer.address);
    await expect(token.withdraw(balance + 1n, {gasLimit: GAS_LIMIT})).to.be.reverted;
  });
});

describe('bank precompile', function () {
  let bank, signer;

  before(async function () {
    ({signer} = await signers());
    bank = await contract('bank');
  });

  it("lists an account's balances, the EVM coin's ERC-20 first", async function () {
    const balances = await bank.balances(signer.address);
    expect(balances.length).to.be.gt(0);
    expect(balances[0].contractAddress).to.equal(ADDRESSES.werc20);
    expect(balances[0].amount).to.equal(await hre.ethers.provider.getBalance(signer.address));
  });

  it('answers the total supply and the supply of one token', async function () {
    expect((await bank.totalSupply()).length).to.be.gt(0);
    expect(await bank.supplyOf(ADDRESSES.werc20)).to.be.gt(0n);
  });
});
