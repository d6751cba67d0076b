"""The chain's modules, one line each, in the SDK's init-genesis and end-block order (Evmos': auth and bank
first, epochs and inflation before distribution (an epoch's mint is handed out in the same begin block),
distribution before staking (its hooks find it ready), staking before evm and feemarket, genutil after them (its
gen txs pass the ante with feemarket's params, as in Evmos), then erc20, and gov last (a param a proposal changes
takes effect one block later than in the SDK, where gov ends blocks first).
The App and every face take what they need from here.
"""

from chaind.chain.modules import (
    auth,
    bank,
    distribution,
    epochs,
    erc20,
    evm,
    feegrant,
    feemarket,
    genutil,
    gov,
    inflation,
    staking,
)

MODULES = (
    auth.MODULE,
    bank.MODULE,
    epochs.MODULE,
    inflation.MODULE,
    distribution.MODULE,
    staking.MODULE,
    evm.MODULE,
    feemarket.MODULE,
    genutil.MODULE,
    erc20.MODULE,
    feegrant.MODULE,
    gov.MODULE,
)
