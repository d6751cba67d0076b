"""The chain's modules, one line each, in the SDK's init-genesis order (Evmos': upgrade first, its pre-blocker
before every begin blocker; auth and bank; epochs and inflation before distribution (an epoch's mint is handed
out in the same begin block); distribution before staking (its hooks find it ready); staking, then slashing and
evidence (their genesis and begin blockers read its validators); evm and feemarket; genutil after them (its gen
txs pass the ante with feemarket's params, as in Evmos); then erc20, feegrant, authz, vesting, nft, gov,
ibc's client, connection and channel, transfer (its keeper binds its port on channel's), and crisis). End
blockers run in Evmos v20's SetOrderEndBlockers order: crisis and gov first, then staking (END_BLOCK_FIRST), so
a param a passed proposal changes applies in its own block, as in the SDK; the rest follow in the list's order.
The App and every face take what they need from here.
"""

from chaind.chain.modules import (
    auth,
    authz,
    bank,
    consensus,
    crisis,
    distribution,
    epochs,
    erc20,
    evidence,
    evm,
    feegrant,
    feemarket,
    genutil,
    gov,
    ibc_channel,
    ibc_client,
    ibc_connection,
    inflation,
    nft,
    params,
    slashing,
    staking,
    transfer,
    upgrade,
    vesting,
)

MODULES = (
    upgrade.MODULE,
    auth.MODULE,
    bank.MODULE,
    epochs.MODULE,
    inflation.MODULE,
    distribution.MODULE,
    staking.MODULE,
    slashing.MODULE,
    evidence.MODULE,
    evm.MODULE,
    feemarket.MODULE,
    genutil.MODULE,
    erc20.MODULE,
    feegrant.MODULE,
    authz.MODULE,
    vesting.MODULE,
    nft.MODULE,
    gov.MODULE,
    ibc_client.MODULE,
    ibc_connection.MODULE,
    ibc_channel.MODULE,
    transfer.MODULE,
    crisis.MODULE,
    params.MODULE,
    consensus.MODULE,
)

# The modules whose end blockers run before all others, in this order (Evmos v20's app.go).
END_BLOCK_FIRST = ("crisis", "gov", "staking")


def end_block_order(modules):
    """The modules with an end blocker, END_BLOCK_FIRST's first, then the others in `modules`' order."""
    first = [name for name in END_BLOCK_FIRST if any(m.name == name for m in modules)]
    ordered = [m for name in first for m in modules if m.name == name]
    return tuple(m for m in ordered + [m for m in modules if m.name not in first] if m.end_block is not None)
