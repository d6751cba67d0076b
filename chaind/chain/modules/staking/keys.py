"""staking's store keys: records by operator, delegator and pair, their indexes, and the time queues."""

from chaind.store.keys import compose, part


def time_key(ns):
    return max(ns, 0).to_bytes(8, "big")


# The prefixes every block reads under (each validator of the last commit, by consensus address, then by
# operator), composed once: compose(prefix parts) + compose(address) is compose(all the parts).
_VAL = compose("staking", "val")
_CONS = compose("staking", "cons")
_DEL = compose("staking", "del")


def val_key(operator):
    return _VAL + part(operator)


def cons_key(cons_address):
    return _CONS + part(cons_address)


def del_key(delegator, validator):
    return _DEL + part(delegator) + part(validator)


def del_by_val_key(validator, delegator):
    return compose("staking", "delv", validator, delegator)


def ubd_key(delegator, validator):
    return compose("staking", "ubd", delegator, validator)


def ubd_by_val_key(validator, delegator):
    return compose("staking", "ubdv", validator, delegator)


def red_key(delegator, src, dst):
    return compose("staking", "red", delegator, src, dst)


def red_by_src_key(src, delegator, dst):
    return compose("staking", "reds", src, delegator, dst)


def red_by_dst_key(dst, delegator, src):
    return compose("staking", "redd", dst, delegator, src)


def last_power_key(operator):
    return compose("staking", "last", operator)


UNBONDING_ID = compose("staking", "ubdid")
LAST_TOTAL_POWER = compose("staking", "total")
UBD_QUEUE = compose("staking", "ubdq")
RED_QUEUE = compose("staking", "redq")
VAL_QUEUE = compose("staking", "valq")
