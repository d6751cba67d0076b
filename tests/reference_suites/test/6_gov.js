// cosmos/evm's precompiles suite, test/6_gov: a proposal submitted through the gov precompile, deposited on,
// voted on (plain and weighted), read by every query, then cancelled with half its deposits refunded.
const {expect} = require('chai');
const hre = require('hardhat');
const {CHAIN, FIRST_PAGE, GAS_LIMIT, contract, findEvent, mined, signers, bech32Of} = require('../common');

describe('gov precompile', function () {
  let gov, signer, proposalId;
  const initial = hre.ethers.parseEther('1');
  const more = hre.ethers.parseEther('0.5');

  before(async function () {
    ({signer} = await signers());
    gov = await contract('gov');
    // A bank send from the gov module's account, in the proto-JSON form MsgSubmitProposal's CLI file takes.
    const proposal = {
      messages: [{'@type': '/cosmos.bank.v1beta1.MsgSend', from_address: CHAIN.govModule,
        to_address: await bech32Of(CHAIN.prefix, signer.address), amount: [{denom: CHAIN.denom, amount: '1'}]}],
      metadata: 'ipfs://CID', title: 'test prop', summary: 'test prop', expedited: false,
    };
    const receipt = await mined(gov.submitProposal(signer.address, hre.ethers.toUtf8Bytes(JSON.stringify(proposal)),
      [{denom: CHAIN.denom, amount: initial}], {gasLimit: GAS_LIMIT}));
    proposalId = findEvent(receipt, gov.interface, 'SubmitProposal').args.proposalId;
  });

  it('answers the proposal', async function () {
    const proposal = await gov.getProposal(proposalId);
    expect(proposal.id).to.equal(proposalId);
    expect(proposal.proposer).to.equal(signer.address);
    expect([proposal.title, proposal.summary, proposal.metadata]).to.deep.equal(['test prop', 'test prop', 'ipfs://CID']);
  });

  it('takes a deposit: the coins leave the depositor', async function () {
    const before = await hre.ethers.provider.getBalance(signer.address);
    const receipt = await mined(gov.deposit(signer.address, proposalId, [{denom: CHAIN.denom, amount: more}],
      {gasLimit: GAS_LIMIT}));
    expect(await hre.ethers.provider.getBalance(signer.address))
      .to.equal(before - more - receipt.gasUsed * receipt.gasPrice);
    const evt = findEvent(receipt, gov.interface, 'Deposit');
    expect(evt.args.proposalId).to.equal(proposalId);
    expect(evt.args.depositor).to.equal(signer.address);
  });

  it('takes a vote and a weighted vote', async function () {
    const vote = findEvent(await mined(gov.vote(signer.address, proposalId, 1, 'simple vote', {gasLimit: GAS_LIMIT})),
      gov.interface, 'Vote');
    expect([vote.args.voter, vote.args.proposalId, vote.args.option]).to.deep.equal([signer.address, proposalId, 1n]);
    const options = [{option: 1, weight: '0.6'}, {option: 2, weight: '0.4'}];
    const weighted = findEvent(await mined(gov.voteWeighted(signer.address, proposalId, options, 'weighted vote',
      {gasLimit: GAS_LIMIT})), gov.interface, 'VoteWeighted');
    expect(weighted.args.voter).to.equal(signer.address);
    expect(weighted.args.options.map((o) => [o.option, o.weight])).to.deep.equal([[1n, '0.6'], [2n, '0.4']]);
  });

  it('answers params, constitution, votes, deposits, tally and proposals', async function () {
    const params = await gov.getParams();
    expect(params.votingPeriod).to.be.gt(0n);
    expect(params.minDeposit.length).to.be.gt(0);
    expect(await gov.getConstitution()).to.be.a('string');
    const {votes, pageResponse} = await gov.getVotes(proposalId, FIRST_PAGE);
    expect(votes.length).to.be.gt(0);
    expect(pageResponse.total).to.be.gt(0n);
    expect([votes[0].proposalId, votes[0].voter]).to.deep.equal([proposalId, signer.address]);
    const vote = await gov.getVote(proposalId, signer.address);
    expect(vote.voter).to.equal(signer.address);
    expect(vote.options.length).to.equal(2);
    const deposit = await gov.getDeposit(proposalId, signer.address);
    expect(deposit.depositor).to.equal(signer.address);
    expect(deposit.amount[0].denom).to.equal(CHAIN.denom);
    expect(deposit.amount[0].amount).to.equal(initial + more);
    const deposits = await gov.getDeposits(proposalId, FIRST_PAGE);
    expect(deposits.deposits.length).to.be.gt(0);
    expect(deposits.pageResponse.total).to.be.gt(0n);
    const tally = await gov.getTallyResult(proposalId);
    for (const figure of [tally.yes, tally.abstain, tally.no, tally.noWithVeto]) expect(figure).to.be.a('string');
    const {proposals} = await gov.getProposals(0, signer.address, signer.address, FIRST_PAGE);
    const listed = proposals.find((p) => p.id === proposalId);
    expect(listed.proposer).to.equal(signer.address);
    expect(listed.title).to.equal('test prop');
  });

  it('cancels the proposal, refunding half the deposits, and forgets it', async function () {
    const before = await hre.ethers.provider.getBalance(signer.address);
    const receipt = await mined(gov.cancelProposal(signer.address, proposalId, {gasLimit: GAS_LIMIT}));
    // The SDK's default proposal_cancel_ratio (0.5) burns half.
    expect(await hre.ethers.provider.getBalance(signer.address))
      .to.equal(before + (initial + more) / 2n - receipt.gasUsed * receipt.gasPrice);
    const evt = findEvent(receipt, gov.interface, 'CancelProposal');
    expect([evt.args.proposer, evt.args.proposalId]).to.deep.equal([signer.address, proposalId]);
    await expect(gov.getProposal(proposalId)).to.be.reverted;
  });
});
