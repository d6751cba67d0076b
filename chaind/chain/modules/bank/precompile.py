"""cosmos/evm's bank precompile at 0x...0804 (IBank.sol): balances and supply of every native coin that has an
ERC-20 token pair, as (contract address, amount), read through the bank keeper and erc20's pairs.

Gas as cosmos/evm: no KV gas, a fixed cost per method (the ERC-20 precompile's balanceOf and totalSupply),
and that cost again for each coin after the first that balances and totalSupply go through.
"""

from chaind.chain.native_precompile import Method, Param, Precompile, struct

ADDRESS = (0x804).to_bytes(20, "big")
GAS_BALANCES = 2_851
GAS_TOTAL_SUPPLY = 2_477
GAS_SUPPLY_OF = 2_477
BALANCE = (Param("contractAddress", "address"), Param("amount", "uint256"))


def _with_pairs(call, found, gas_each):
    """(contract, amount) of the coins with a token pair, charging gas_each for every coin after the first."""
    out = []
    for i, (denom, amount) in enumerate(found):
        if i:
            call.use_gas(gas_each)
        pair = call.app.keepers["erc20"].pair_of(call.view(), denom)
        if pair is not None:
            out.append((pair.erc20_address, amount))
    return out


def _balances(call, account):
    found = call.app.keepers["bank"].all_balances(call.view(), bytes.fromhex(account[2:]))
    return (_with_pairs(call, found, GAS_BALANCES),)


def _total_supply(call):
    return (_with_pairs(call, call.app.keepers["bank"].total_supply(call.view()), GAS_TOTAL_SUPPLY),)


def _supply_of(call, contract):
    pair = call.app.keepers["erc20"].pair_of(call.view(), contract)
    return (0 if pair is None else call.app.keepers["bank"].supply(call.view(), pair.denom),)


PRECOMPILE = Precompile("bank", ADDRESS, (
    Method("balances", (("account", "address"),), (struct("balances", BALANCE, array=True),), _balances,
           gas=GAS_BALANCES),
    Method("totalSupply", (), (struct("totalSupply", BALANCE, array=True),), _total_supply, gas=GAS_TOTAL_SUPPLY),
    Method("supplyOf", (("erc20Address", "address"),), (("totalSupply", "uint256"),), _supply_of, gas=GAS_SUPPLY_OF),
), metered=False)
run = PRECOMPILE
