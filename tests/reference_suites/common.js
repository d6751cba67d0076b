// What the cases share: the dev chain's constants (from the environment tests/test_reference_suites.py sets),
// cosmos/evm's precompile addresses and the ABI fragments of its interfaces (StakingI, DistributionI, IBank,
// IGov, Bech32I, ISlashing, IWERC20) that the cases call, in ethers' human-readable form.
const hre = require('hardhat');

const env = (name) => {
  if (!process.env[name]) throw new Error(`${name} is not set`);
  return process.env[name];
};

const CHAIN = {
  prefix: env('CHAIND_PREFIX'),
  denom: env('CHAIND_DENOM'),
  validator: env('CHAIND_VALIDATOR'),           // the genesis validator (its operator is the last signer)
  tokenName: env('CHAIND_TOKEN_NAME'),
  tokenSymbol: env('CHAIND_TOKEN_SYMBOL'),
  govModule: env('CHAIND_GOV_MODULE'),          // the gov module's account, bech32
};

const ADDRESSES = {
  p256: '0x0000000000000000000000000000000000000100',
  bech32: '0x0000000000000000000000000000000000000400',
  staking: '0x0000000000000000000000000000000000000800',
  distribution: '0x0000000000000000000000000000000000000801',
  bank: '0x0000000000000000000000000000000000000804',
  gov: '0x0000000000000000000000000000000000000805',
  slashing: '0x0000000000000000000000000000000000000806',
  werc20: '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE',
};

const DESCRIPTION = '(string moniker, string identity, string website, string securityContact, string details)';
const VALIDATOR = `(string operatorAddress, string consensusPubkey, bool jailed, uint8 status, uint256 tokens, ` +
  `uint256 delegatorShares, ${DESCRIPTION} description, int64 unbondingHeight, int64 unbondingTime, ` +
  `uint256 commission, uint256 minSelfDelegation)`;
const PAGE_REQUEST = '(bytes key, uint64 offset, uint64 limit, bool countTotal, bool reverse)';
const PAGE_RESPONSE = '(bytes nextKey, uint64 total)';
const COINS = '(string denom, uint256 amount)[]';
const DEC_COINS = '(string denom, uint256 amount, uint8 precision)[]';
const SIGNING_INFO = '(address validatorAddress, int64 startHeight, int64 indexOffset, int64 jailedUntil, ' +
  'bool tombstoned, int64 missedBlocksCounter)';
const DEC = '(uint256 value, uint8 precision)';
const TALLY = '(string yes, string abstain, string no, string noWithVeto)';
const PROPOSAL = `(uint64 id, string[] messages, uint32 status, ${TALLY} finalTallyResult, uint64 submitTime, ` +
  `uint64 depositEndTime, ${COINS} totalDeposit, uint64 votingStartTime, uint64 votingEndTime, string metadata, ` +
  'string title, string summary, address proposer)';
const VOTE = '(uint64 proposalId, address voter, (uint8 option, string weight)[] options, string metadata)';
const DEPOSIT = `(uint64 proposalId, address depositor, ${COINS} amount)`;

const ABI = {
  staking: [
    'event CreateValidator(address indexed validatorAddress, uint256 value)',
    'event EditValidator(address indexed validatorAddress, int256 commissionRate, int256 minSelfDelegation)',
    'event Delegate(address indexed delegatorAddress, address indexed validatorAddress, uint256 amount, uint256 newShares)',
    'event Unbond(address indexed delegatorAddress, address indexed validatorAddress, uint256 amount, uint256 completionTime)',
    'event Redelegate(address indexed delegatorAddress, address indexed validatorSrcAddress, address indexed validatorDstAddress, uint256 amount, uint256 completionTime)',
    'event CancelUnbondingDelegation(address indexed delegatorAddress, address indexed validatorAddress, uint256 amount, uint256 creationHeight)',
    `function createValidator(${DESCRIPTION} description, (uint256 rate, uint256 maxRate, uint256 maxChangeRate) commissionRates, uint256 minSelfDelegation, address validatorAddress, string pubkey, uint256 value) returns (bool success)`,
    `function editValidator(${DESCRIPTION} description, address validatorAddress, int256 commissionRate, int256 minSelfDelegation) returns (bool success)`,
    'function delegate(address delegatorAddress, string validatorAddress, uint256 amount) returns (bool success)',
    'function undelegate(address delegatorAddress, string validatorAddress, uint256 amount) returns (int64 completionTime)',
    'function redelegate(address delegatorAddress, string validatorSrcAddress, string validatorDstAddress, uint256 amount) returns (int64 completionTime)',
    'function cancelUnbondingDelegation(address delegatorAddress, string validatorAddress, uint256 amount, uint256 creationHeight) returns (bool success)',
    'function delegation(address delegatorAddress, string validatorAddress) view returns (uint256 shares, (string denom, uint256 amount) balance)',
    'function unbondingDelegation(address delegatorAddress, string validatorAddress) view returns ((string delegatorAddress, string validatorAddress, (int64 creationHeight, int64 completionTime, uint256 initialBalance, uint256 balance, uint64 unbondingId, int64 unbondingOnHoldRefCount)[] entries) unbondingDelegation)',
    'function redelegation(address delegatorAddress, string srcValidatorAddress, string dstValidatorAddress) view returns ((string delegatorAddress, string validatorSrcAddress, string validatorDstAddress, (int64 creationHeight, int64 completionTime, uint256 initialBalance, uint256 sharesDst)[] entries) redelegation)',
    `function validator(address validatorAddress) view returns (${VALIDATOR} validator)`,
    `function validators(string status, ${PAGE_REQUEST} pageRequest) view returns (${VALIDATOR}[] validators, ${PAGE_RESPONSE} pageResponse)`,
  ],
  distribution: [
    'event SetWithdrawerAddress(address indexed caller, string withdrawerAddress)',
    'event WithdrawDelegatorReward(address indexed delegatorAddress, address indexed validatorAddress, uint256 amount)',
    'event WithdrawValidatorCommission(string indexed validatorAddress, uint256 commission)',
    'event ClaimRewards(address indexed delegatorAddress, uint256 amount)',
    'event FundCommunityPool(address indexed depositor, string denom, uint256 amount)',
    'event DepositValidatorRewardsPool(address indexed depositor, address indexed validatorAddress, string denom, uint256 amount)',
    'function setWithdrawAddress(address delegatorAddress, string withdrawerAddress) returns (bool success)',
    `function withdrawDelegatorRewards(address delegatorAddress, string validatorAddress) returns (${COINS} amount)`,
    `function withdrawValidatorCommission(string validatorAddress) returns (${COINS} amount)`,
    'function claimRewards(address delegatorAddress, uint32 maxRetrieve) returns (bool success)',
    `function fundCommunityPool(address depositor, ${COINS} amount) returns (bool success)`,
    `function depositValidatorRewardsPool(address depositor, string validatorAddress, ${COINS} amount) returns (bool success)`,
    'function delegatorWithdrawAddress(address delegatorAddress) view returns (string withdrawAddress)',
    `function delegationRewards(address delegatorAddress, string validatorAddress) view returns (${DEC_COINS} rewards)`,
    `function delegationTotalRewards(address delegatorAddress) view returns ((string validatorAddress, ${DEC_COINS} reward)[] rewards, ${DEC_COINS} total)`,
    `function communityPool() view returns (${DEC_COINS} coins)`,
    `function validatorCommission(string validatorAddress) view returns (${DEC_COINS} commission)`,
    `function validatorOutstandingRewards(string validatorAddress) view returns (${DEC_COINS} rewards)`,
    `function validatorDistributionInfo(string validatorAddress) view returns ((string operatorAddress, ${DEC_COINS} selfBondRewards, ${DEC_COINS} commission) distributionInfo)`,
    `function validatorSlashes(string validatorAddress, uint64 startingHeight, uint64 endingHeight, ${PAGE_REQUEST} pageRequest) view returns ((uint64 validatorPeriod, ${DEC} fraction)[] slashes, ${PAGE_RESPONSE} pageResponse)`,
    'function delegatorValidators(address delegatorAddress) view returns (string[] validators)',
  ],
  bank: [
    'function balances(address account) view returns ((address contractAddress, uint256 amount)[] balances)',
    'function totalSupply() view returns ((address contractAddress, uint256 amount)[] totalSupply)',
    'function supplyOf(address erc20Address) view returns (uint256 totalSupply)',
  ],
  gov: [
    'event SubmitProposal(address indexed proposer, uint64 proposalId)',
    `event Deposit(address indexed depositor, uint64 proposalId, ${COINS} amount)`,
    'event Vote(address indexed voter, uint64 proposalId, uint8 option)',
    'event VoteWeighted(address indexed voter, uint64 proposalId, (uint8 option, string weight)[] options)',
    'event CancelProposal(address indexed proposer, uint64 proposalId)',
    `function submitProposal(address proposer, bytes jsonProposal, ${COINS} deposit) returns (uint64 proposalId)`,
    `function deposit(address depositor, uint64 proposalId, ${COINS} amount) returns (bool success)`,
    'function vote(address voter, uint64 proposalId, uint8 option, string metadata) returns (bool success)',
    'function voteWeighted(address voter, uint64 proposalId, (uint8 option, string weight)[] options, string metadata) returns (bool success)',
    'function cancelProposal(address proposer, uint64 proposalId) returns (bool success)',
    `function getProposal(uint64 proposalId) view returns (${PROPOSAL} proposal)`,
    `function getProposals(uint32 proposalStatus, address voter, address depositor, ${PAGE_REQUEST} pagination) view returns (${PROPOSAL}[] proposals, ${PAGE_RESPONSE} pageResponse)`,
    `function getVote(uint64 proposalId, address voter) view returns (${VOTE} vote)`,
    `function getVotes(uint64 proposalId, ${PAGE_REQUEST} pagination) view returns (${VOTE}[] votes, ${PAGE_RESPONSE} pageResponse)`,
    `function getDeposit(uint64 proposalId, address depositor) view returns (${DEPOSIT} deposit)`,
    `function getDeposits(uint64 proposalId, ${PAGE_REQUEST} pagination) view returns (${DEPOSIT}[] deposits, ${PAGE_RESPONSE} pageResponse)`,
    'function getTallyResult(uint64 proposalId) view returns ((string yes, string abstain, string no, string noWithVeto) tallyResult)',
    `function getParams() view returns ((int64 votingPeriod, ${COINS} minDeposit, int64 maxDepositPeriod, string quorum, string threshold, string vetoThreshold, string minInitialDepositRatio, string proposalCancelRatio, string proposalCancelDest, int64 expeditedVotingPeriod, string expeditedThreshold, ${COINS} expeditedMinDeposit, bool burnVoteQuorum, bool burnProposalDepositPrevote, bool burnVoteVeto, string minDepositRatio) params)`,
    'function getConstitution() view returns (string constitution)',
  ],
  bech32: [
    'function hexToBech32(address addr, string prefix) returns (string bech32Address)',
    'function bech32ToHex(string bech32Address) returns (address addr)',
  ],
  slashing: [
    `function getSigningInfo(address consAddress) view returns (${SIGNING_INFO} signingInfo)`,
    `function getSigningInfos(${PAGE_REQUEST} pagination) view returns (${SIGNING_INFO}[] signingInfos, ${PAGE_RESPONSE} pageResponse)`,
    `function getParams() view returns ((int64 signedBlocksWindow, ${DEC} minSignedPerWindow, int64 downtimeJailDuration, ${DEC} slashFractionDoubleSign, ${DEC} slashFractionDowntime) params)`,
  ],
  werc20: [
    'event Transfer(address indexed from, address indexed to, uint256 value)',
    'event Approval(address indexed owner, address indexed spender, uint256 value)',
    'event Deposit(address indexed dst, uint256 wad)',
    'event Withdrawal(address indexed src, uint256 wad)',
    'function name() view returns (string)',
    'function symbol() view returns (string)',
    'function decimals() view returns (uint8)',
    'function totalSupply() view returns (uint256)',
    'function balanceOf(address account) view returns (uint256)',
    'function allowance(address owner, address spender) view returns (uint256)',
    'function transfer(address to, uint256 amount) returns (bool)',
    'function approve(address spender, uint256 amount) returns (bool)',
    'function transferFrom(address from, address to, uint256 amount) returns (bool)',
    'function deposit() payable',
    'function withdraw(uint256 wad)',
  ],
};

const GAS_LIMIT = 1_000_000;     // as cosmos/evm's cases: no estimate, a fixed limit
const FIRST_PAGE = {key: '0x', offset: 0, limit: 100, countTotal: true, reverse: false};

function contract(name) {
  return hre.ethers.getContractAt(ABI[name], ADDRESSES[name]);
}

// The first log of `receipt` that `iface` parses as `name`.
function findEvent(receipt, iface, name) {
  for (const log of receipt.logs) {
    try {
      const parsed = iface.parseLog(log);
      if (parsed && parsed.name === name) return parsed;
    } catch {
      // a log of another interface
    }
  }
  return null;
}

// The receipt of a tx that must succeed.
async function mined(txPromise) {
  const receipt = await (await txPromise).wait();
  if (receipt.status !== 1) throw new Error(`tx ${receipt.hash} failed`);
  return receipt;
}

async function signers() {
  const [signer, other, operator] = await hre.ethers.getSigners();
  return {signer, other, operator};
}

function bech32Of(prefix, hexAddress) {
  return contract('bech32').then((b) => b.hexToBech32.staticCall(hexAddress, prefix));
}

module.exports = {CHAIN, ADDRESSES, ABI, GAS_LIMIT, FIRST_PAGE, contract, findEvent, mined, signers, bech32Of};
