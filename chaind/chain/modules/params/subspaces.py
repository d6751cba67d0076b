"""The legacy x/params subspaces: each module's current params under the key names and in the amino JSON the SDK
v0.46 (and Evmos') param sets stored them, so the legacy query answers what the module uses now.

Amino JSON writes 64-bit integers, Int, Dec and durations (nanoseconds) as strings, 32-bit integers as numbers.
"""

import json

from chaind.chain import legacy_dec
from chaind.chain.modules.distribution.params import params as distribution_params


def _text(value):
    return json.dumps(str(value))


def _dec(atomics):
    return json.dumps(legacy_dec.format(atomics))


def _bool(value):
    return "true" if value else "false"


def _duration_ns(d):
    return json.dumps(str(d.seconds * 10**9 + d.nanos))


def _coins(coins):
    return json.dumps([{"denom": c.denom, "amount": c.amount} for c in coins], separators=(",", ":"))


def _auth(app, view):
    p = app.genesis.auth_params
    return {"MaxMemoCharacters": _text(p.max_memo_characters), "TxSigLimit": _text(p.tx_sig_limit),
            "TxSizeCostPerByte": _text(p.tx_size_cost_per_byte),
            "SigVerifyCostED25519": _text(p.sig_verify_cost_ed25519),
            "SigVerifyCostSecp256k1": _text(p.sig_verify_cost_secp256k1)}


def _bank(app, view):
    return {"DefaultSendEnabled": _bool(app.keepers["bank"].default_send_enabled(view))}


def _staking(app, view):
    p = app.keepers["staking"].params(view)
    return {"UnbondingTime": _text(p.unbonding_time_ns), "MaxValidators": str(p.max_validators),
            "MaxEntries": str(p.max_entries), "HistoricalEntries": str(p.historical_entries),
            "BondDenom": _text(p.bond_denom), "MinCommissionRate": _dec(p.min_commission_rate)}


def _distribution(app, view):
    p = distribution_params(view)
    return {"communitytax": _dec(p.community_tax), "baseproposerreward": _dec(p.base_proposer_reward),
            "bonusproposerreward": _dec(p.bonus_proposer_reward),
            "withdrawaddrenabled": _bool(p.withdraw_addr_enabled)}


def _gov(app, view):
    p = app.keepers["gov"].params(view)
    compact = {"separators": (",", ":")}
    return {"depositparams": json.dumps({"min_deposit": json.loads(_coins(p.min_deposit)),
                                         "max_deposit_period": str(p.max_deposit_period.ToNanoseconds())}, **compact),
            "votingparams": json.dumps({"voting_period": str(p.voting_period.ToNanoseconds())}, **compact),
            "tallyparams": json.dumps({"quorum": p.quorum, "threshold": p.threshold,
                                       "veto_threshold": p.veto_threshold}, **compact)}


def _crisis(app, view):
    denom, amount = app.keepers["crisis"].constant_fee(view)
    return {"ConstantFee": json.dumps({"denom": denom, "amount": str(amount)}, separators=(",", ":"))}


def _feemarket(app, view):
    p = app.keepers["feemarket"].params(view)
    return {"NoBaseFee": _bool(p.no_base_fee), "BaseFeeChangeDenominator": str(p.base_fee_change_denominator),
            "ElasticityMultiplier": str(p.elasticity_multiplier), "EnableHeight": _text(p.enable_height),
            "BaseFee": _text(app.block_at(view.height)[1].base_fee), "MinGasPrice": _dec(p.min_gas_price),
            "MinGasMultiplier": _dec(p.min_gas_multiplier)}


def _inflation(app, view):
    p = app.keepers["inflation"].params(view)
    compact = {"separators": (",", ":")}
    return {"MintDenom": _text(p.mint_denom),
            "ExponentialCalculation": json.dumps({
                "a": legacy_dec.format(p.a), "r": legacy_dec.format(p.r), "c": legacy_dec.format(p.c),
                "bonding_target": legacy_dec.format(p.bonding_target),
                "max_variance": legacy_dec.format(p.max_variance)}, **compact),
            "InflationDistribution": json.dumps({
                "staking_rewards": legacy_dec.format(p.staking_rewards),
                "usage_incentives": legacy_dec.format(p.usage_incentives),
                "community_pool": legacy_dec.format(p.community_pool)}, **compact),
            "EnableInflation": _bool(p.enable_inflation)}


# {subspace (the module's name): reader(app, view) -> {key: amino JSON value}}, in the SDK's key order.
SUBSPACES = {"auth": _auth, "bank": _bank, "staking": _staking, "distribution": _distribution, "gov": _gov,
             "crisis": _crisis, "feemarket": _feemarket, "inflation": _inflation}
