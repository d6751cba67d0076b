"""The authorizations a grant may carry, as the SDK and ibc-go define them: GenericAuthorization (x/authz),
SendAuthorization (x/bank), StakeAuthorization (x/staking) and TransferAuthorization (ibc-go v8.5 apps/transfer);
each gives its message type URL, its ValidateBasic and its Accept."""

import re

import attrs
from google.protobuf import any_pb2

from chaind.chain import errors
from chaind.chain.modules.authz.errors import NEGATIVE_MAX_TOKENS, UNKNOWN_AUTHORIZATION_TYPE, error, invalid_type
from chaind.pb.cosmos.authz.v1beta1 import authz_pb2
from chaind.pb.cosmos.bank.v1beta1 import authz_pb2 as bank_authz
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.staking.v1beta1 import authz_pb2 as staking_authz
from chaind.pb.ibc.applications.transfer.v1 import authz_pb2 as transfer_authz

GENERIC = "/cosmos.authz.v1beta1.GenericAuthorization"
SEND = "/cosmos.bank.v1beta1.SendAuthorization"
STAKE = "/cosmos.staking.v1beta1.StakeAuthorization"
MSG_SEND = "/cosmos.bank.v1beta1.MsgSend"
TRANSFER = "/ibc.applications.transfer.v1.TransferAuthorization"
MSG_TRANSFER = "/ibc.applications.transfer.v1.MsgTransfer"
UNBOUNDED_SPEND_LIMIT = 2**256 - 1      # ibc-go's UnboundedSpendLimit sentinel
ALLOW_ALL_PACKET_DATA = "*"             # AllowAllPacketDataKeys
ITER_NEXT_COST_FLAT = 30                # the KV gas config's IterNextCostFlat, Accept's cost per entry looked at
_IDENTIFIER = re.compile(r"^[a-zA-Z0-9\.\_\+\-\#\[\]\<\>]+$")

_STAKE_URLS = {
    staking_authz.AUTHORIZATION_TYPE_DELEGATE: "/cosmos.staking.v1beta1.MsgDelegate",
    staking_authz.AUTHORIZATION_TYPE_UNDELEGATE: "/cosmos.staking.v1beta1.MsgUndelegate",
    staking_authz.AUTHORIZATION_TYPE_REDELEGATE: "/cosmos.staking.v1beta1.MsgBeginRedelegate",
    staking_authz.AUTHORIZATION_TYPE_CANCEL_UNBONDING_DELEGATION:
        "/cosmos.staking.v1beta1.MsgCancelUnbondingDelegation",
}


@attrs.frozen
class Accepted:
    """AcceptResponse of an accepted message: delete the grant, or replace its authorization (updated); gas: what
    Accept consumed on the gas meter (gas_location names it)."""

    delete: bool = False
    updated: object = None
    gas: int = 0
    gas_location: str = ""


# x/bank's and x/staking's gasCostPerIteration: gas for each allow or deny list entry Accept looks at.
GAS_PER_ENTRY = 10


def _coins(repeated):
    """{denom: amount} of proto coins; invalid coins (not integers) as the SDK's Coins would not parse."""
    out = {}
    for c in repeated:
        try:
            out[c.denom] = out.get(c.denom, 0) + int(c.amount)
        except ValueError:
            raise errors.invalid_coins(f"invalid coin amount {c.amount!r}") from None
    return out


class Generic:
    cls = authz_pb2.GenericAuthorization

    @staticmethod
    def msg_type_url(a):
        return a.msg

    @staticmethod
    def validate(a):
        pass

    @staticmethod
    def accept(a, type_url, msg):
        return Accepted()


class Send:
    cls = bank_authz.SendAuthorization

    @staticmethod
    def msg_type_url(a):
        return MSG_SEND

    @staticmethod
    def validate(a):
        limit = _coins(a.spend_limit)
        if not a.spend_limit:
            raise errors.invalid_coins("spend limit cannot be nil")
        if any(amount <= 0 for amount in limit.values()) or len(limit) != len(a.spend_limit):
            raise errors.invalid_coins("spend limit must be positive")
        if len(set(a.allow_list)) != len(a.allow_list):
            raise errors.TxError("bank", 8, "duplicate entry")

    @staticmethod
    def accept(a, type_url, msg):
        if type_url != MSG_SEND:
            raise invalid_type("type mismatch")
        left = _coins(a.spend_limit)
        for denom, amount in _coins(msg.amount).items():
            left[denom] = left.get(denom, 0) - amount
        if any(amount < 0 for amount in left.values()):
            raise errors.insufficient_funds("requested amount is more than spend limit")
        if a.allow_list and msg.to_address not in a.allow_list:
            raise errors.unauthorized(f"cannot send to {msg.to_address} address")
        # The allow list is walked up to the receiver, each entry at GAS_PER_ENTRY.
        looked_at = list(a.allow_list).index(msg.to_address) + 1 if a.allow_list else 0
        gas = {"gas": GAS_PER_ENTRY * looked_at, "gas_location": "send authorization"}
        remaining = [(d, n) for d, n in sorted(left.items()) if n > 0]
        if not remaining:
            return Accepted(delete=True, **gas)
        return Accepted(updated=bank_authz.SendAuthorization(
            spend_limit=[coin_pb2.Coin(denom=d, amount=str(n)) for d, n in remaining], allow_list=a.allow_list),
            **gas)


class Stake:
    cls = staking_authz.StakeAuthorization

    @staticmethod
    def msg_type_url(a):
        found = _STAKE_URLS.get(a.authorization_type)
        if found is None:
            raise error(UNKNOWN_AUTHORIZATION_TYPE, f"cannot normalize authz type with {a.authorization_type}")
        return found

    @staticmethod
    def validate(a):
        if a.HasField("max_tokens"):
            try:
                negative = int(a.max_tokens.amount or "0") < 0
            except ValueError:
                raise errors.invalid_coins(f"invalid coin amount {a.max_tokens.amount!r}") from None
            if negative:
                raise error(NEGATIVE_MAX_TOKENS, f"negative coin amount: {a.max_tokens.amount}{a.max_tokens.denom}")
        if a.authorization_type == staking_authz.AUTHORIZATION_TYPE_UNSPECIFIED:
            raise error(UNKNOWN_AUTHORIZATION_TYPE)

    @staticmethod
    def accept(a, type_url, msg):
        if type_url not in _STAKE_URLS.values():
            raise errors.invalid_request("unknown msg type")
        validator = msg.validator_dst_address if type_url.endswith("MsgBeginRedelegate") else msg.validator_address
        allowed = list(a.allow_list.address) if a.HasField("allow_list") else []
        denied = list(a.deny_list.address) if a.HasField("deny_list") else []
        if validator in denied:
            raise errors.unauthorized(f"cannot delegate/undelegate to {validator} validator")
        if allowed and validator not in allowed:
            raise errors.unauthorized(f"cannot delegate/undelegate to {validator} validator")
        kept = staking_authz.StakeAuthorization(authorization_type=a.authorization_type)
        if a.HasField("allow_list"):
            kept.allow_list.CopyFrom(a.allow_list)
        elif a.HasField("deny_list"):
            kept.deny_list.CopyFrom(a.deny_list)
        # Both lists are walked (the allow list up to the validator), each entry at GAS_PER_ENTRY.
        looked_at = (allowed.index(validator) + 1 if allowed else 0) + len(denied)
        gas = {"gas": GAS_PER_ENTRY * looked_at, "gas_location": "stake authorization"}
        if not a.HasField("max_tokens"):
            return Accepted(updated=kept, **gas)
        # Coin.SafeSub: a plain error (ABCI code 1 in codespace "undefined") on another denom or a negative rest.
        if a.max_tokens.denom != msg.amount.denom:
            raise errors.TxError("undefined", 1, f"invalid coin denoms: {a.max_tokens.denom}, {msg.amount.denom}")
        left = int(a.max_tokens.amount) - int(msg.amount.amount)
        if left < 0:
            raise errors.TxError("undefined", 1, f"negative coin amount: {left}{a.max_tokens.denom}")
        if left == 0:
            return Accepted(delete=True, **gas)
        kept.max_tokens.denom, kept.max_tokens.amount = a.max_tokens.denom, str(left)
        return Accepted(updated=kept, **gas)


def _ibc(codespace, code, text):
    return errors.TxError(codespace, code, text)


def _identifier_problem(identifier, low, high):
    """24-host's defaultIdentifierValidator, or None."""
    if not identifier.strip():
        return "identifier cannot be blank"
    if "/" in identifier:
        return f"identifier {identifier} cannot contain separator '/'"
    if not low <= len(identifier) <= high:
        return f"identifier {identifier} has invalid length: {len(identifier)}, must be between {low}-{high} characters"
    if not _IDENTIFIER.match(identifier):
        return (f"identifier {identifier} must contain only alphanumeric or the following characters: '.', '_', '+', "
                "'-', '#', '[', ']', '<', '>'")
    return None


def _coins_problem(coins):
    """sdk.Coins' Validate of proto coins, or None."""
    denoms = []
    for c in coins:
        try:
            amount = int(c.amount)
        except ValueError:
            return f"invalid coin amount {c.amount!r}"
        if amount <= 0:
            return f"coin {c.amount}{c.denom} amount is not positive"
        denoms.append(c.denom)
    for earlier, later in zip(denoms, denoms[1:], strict=False):
        if earlier == later:
            return f"duplicate denomination {later}"
        if earlier > later:
            return f"denomination {later} is not sorted"
    return None


class Transfer:
    """ibc-go v8.5's TransferAuthorization: per source port and channel, a spend limit (UnboundedSpendLimit: no
    limit), a receiver allow list and the memos allowed."""

    cls = transfer_authz.TransferAuthorization

    @staticmethod
    def msg_type_url(a):
        return MSG_TRANSFER

    @staticmethod
    def validate(a):
        if not a.allocations:
            raise _ibc("transfer", 10, "allocations cannot be empty: invalid transfer authorization")
        channels = set()
        for allocation in a.allocations:
            if allocation.source_channel in channels:
                raise _ibc("channel", 4, f"duplicate source channel ID: {allocation.source_channel}: invalid channel")
            channels.add(allocation.source_channel)
            if not allocation.spend_limit:
                raise _ibc("ibc", 6, "spend limit cannot be nil: invalid coins")
            problem = _coins_problem(allocation.spend_limit)
            if problem:
                raise _ibc("ibc", 6, f"{problem}: invalid coins")
            for what, identifier, low, high, code in (("port", allocation.source_port, 2, 128, 2),
                                                      ("channel", allocation.source_channel, 8, 64, 2)):
                problem = _identifier_problem(identifier, low, high)
                if problem:
                    raise _ibc("host", code, f"invalid source {what} ID: {problem}: invalid identifier")
            if len(set(allocation.allow_list)) != len(allocation.allow_list):
                twice = next(x for i, x in enumerate(allocation.allow_list) if x in allocation.allow_list[:i])
                raise _ibc("transfer", 10, f"duplicate entry in allow list {twice}: invalid transfer authorization")

    @staticmethod
    def accept(a, type_url, msg):
        if type_url != MSG_TRANSFER:
            raise _ibc("ibc", 12, "type mismatch: invalid type")
        gas = 0
        for index, allocation in enumerate(a.allocations):
            if (allocation.source_channel, allocation.source_port) != (msg.source_channel, msg.source_port):
                continue
            if allocation.allow_list:
                looked_at = (list(allocation.allow_list).index(msg.receiver) + 1
                             if msg.receiver in allocation.allow_list else len(allocation.allow_list))
                gas += ITER_NEXT_COST_FLAT * looked_at
                if msg.receiver not in allocation.allow_list:
                    raise _ibc("ibc", 5, "not allowed receiver address for transfer: invalid address")
            gas += _check_memo(msg.memo, allocation.allowed_packet_data)
            spent = {"gas": gas, "gas_location": "transfer authorization"}
            limit = _coins(allocation.spend_limit)
            token_amount = int(msg.token.amount)
            if limit.get(msg.token.denom) == UNBOUNDED_SPEND_LIMIT:
                return Accepted(**spent)
            left = dict(limit)
            left[msg.token.denom] = left.get(msg.token.denom, 0) - token_amount
            if any(amount < 0 for amount in left.values()):
                raise _ibc("ibc", 3, "requested amount is more than spend limit: insufficient funds")
            kept = [coin_pb2.Coin(denom=d, amount=str(n)) for d, n in sorted(left.items()) if n > 0]
            allocations = list(a.allocations)
            if not kept:
                del allocations[index]
                if not allocations:
                    return Accepted(delete=True, **spent)
            else:
                allocations[index] = transfer_authz.Allocation(
                    source_port=allocation.source_port, source_channel=allocation.source_channel, spend_limit=kept,
                    allow_list=allocation.allow_list, allowed_packet_data=allocation.allowed_packet_data)
            return Accepted(updated=transfer_authz.TransferAuthorization(allocations=allocations), **spent)
        raise _ibc("ibc", 16, "requested port and channel allocation does not exist: not found")


def _check_memo(memo, allowed):
    """validateMemo: the gas it used; an empty allow list allows only an empty memo, ["*"] every memo."""
    if not allowed:
        if memo.strip():
            raise _ibc("transfer", 10, "memo must be empty because allowed packet data in allocation is empty: "
                       "invalid transfer authorization")
        return 0
    if len(allowed) == 1 and allowed[0] == ALLOW_ALL_PACKET_DATA:
        return 0
    for looked_at, entry in enumerate(allowed, 1):
        if memo.strip() == entry.strip():
            return ITER_NEXT_COST_FLAT * looked_at
    raise _ibc("transfer", 10, f"not allowed memo: {memo}: invalid transfer authorization")


KINDS = {GENERIC: Generic, SEND: Send, STAKE: Stake, TRANSFER: Transfer}


def decode(any_):
    """(kind, authorization) of a grant's Any; a type no module registers is refused as the SDK's codec does."""
    kind = KINDS.get(any_.type_url)
    if kind is None:
        raise errors.decode_error(f"no concrete type registered for type URL {any_.type_url} against interface "
                                  "*authz.Authorization")
    try:
        return kind, kind.cls.FromString(any_.value)
    except Exception:  # noqa: BLE001 (untrusted bytes: any decode failure is the sender's error)
        raise errors.decode_error(f"unable to decode {any_.type_url}") from None


def to_any(message):
    return any_pb2.Any(type_url="/" + message.DESCRIPTOR.full_name, value=message.SerializeToString())
