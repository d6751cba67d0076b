"""staking's records as x/staking's protos (LegacyDec fields carry their atomics, as on the SDK's wire): what the
queries answer and what the staking IAVL store holds."""

from google.protobuf import any_pb2, duration_pb2, timestamp_pb2

from chaind.chain.modules.staking.records import ED25519_PUBKEY
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.crypto.ed25519 import keys_pb2 as ed25519_pb2
from chaind.pb.cosmos.staking.v1beta1 import staking_pb2


def timestamp(ns):
    stamp = timestamp_pb2.Timestamp()
    stamp.FromNanoseconds(ns)
    return stamp


def validator(v, valoper_prefix):
    # Every message field is set even when empty: gogoproto writes its non-nullable fields always.
    pubkey = any_pb2.Any(type_url=ED25519_PUBKEY, value=ed25519_pb2.PubKey(key=v.pubkey).SerializeToString())
    rates = staking_pb2.CommissionRates(rate=str(v.rate), max_rate=str(v.max_rate),
                                        max_change_rate=str(v.max_change_rate))
    return staking_pb2.Validator(
        operator_address=to_bech32(valoper_prefix, v.operator), consensus_pubkey=pubkey, jailed=v.jailed,
        status=v.status, tokens=str(v.tokens), delegator_shares=str(v.shares),
        description=staking_pb2.Description(**v.description), unbonding_height=v.unbonding_height,
        unbonding_time=timestamp(v.unbonding_time_ns),
        commission=staking_pb2.Commission(commission_rates=rates, update_time=timestamp(v.update_time_ns)),
        min_self_delegation=str(v.min_self_delegation))


def delegation(prefix, delegator, operator, shares):
    return staking_pb2.Delegation(delegator_address=to_bech32(prefix, delegator),
                                  validator_address=to_bech32(prefix + "valoper", operator), shares=str(shares))


def unbonding(prefix, delegator, operator, entries):
    """An UnbondingDelegation of state's entries ([creation_height, completion_ns, initial, balance, id])."""
    return staking_pb2.UnbondingDelegation(
        delegator_address=to_bech32(prefix, delegator), validator_address=to_bech32(prefix + "valoper", operator),
        entries=[staking_pb2.UnbondingDelegationEntry(
            creation_height=height, completion_time=timestamp(completion), initial_balance=initial,
            balance=balance, unbonding_id=number) for height, completion, initial, balance, number in entries])


def redelegation_entry(height, completion, initial, shares_dst, number):
    return staking_pb2.RedelegationEntry(creation_height=height, completion_time=timestamp(completion),
                                         initial_balance=initial, shares_dst=shares_dst, unbonding_id=number)


def redelegation(prefix, delegator, src, dst, entries):
    """A Redelegation of state's entries ([creation_height, completion_ns, initial, shares_dst, id])."""
    valoper = prefix + "valoper"
    return staking_pb2.Redelegation(
        delegator_address=to_bech32(prefix, delegator), validator_src_address=to_bech32(valoper, src),
        validator_dst_address=to_bech32(valoper, dst), entries=[redelegation_entry(*entry) for entry in entries])


def params(p):
    unbonding_time = duration_pb2.Duration()
    unbonding_time.FromNanoseconds(p.unbonding_time_ns)
    return staking_pb2.Params(unbonding_time=unbonding_time, max_validators=p.max_validators,
                              max_entries=p.max_entries, historical_entries=p.historical_entries,
                              bond_denom=p.bond_denom, min_commission_rate=str(p.min_commission_rate))
