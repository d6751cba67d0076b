"""The chain's modules, one line each, in the SDK's init-genesis and end-block order (Evmos': auth and bank
first, staking before evm and feemarket, erc20 last). The App and every face take what they need from here.
"""

from chaind.chain.modules import auth, bank, erc20, evm, feemarket, gov, staking

MODULES = (
    auth.MODULE,
    bank.MODULE,
    staking.MODULE,
    evm.MODULE,
    feemarket.MODULE,
    erc20.MODULE,
    gov.MODULE,
)
