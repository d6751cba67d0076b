"""A signed EVM tx's malleable twin (s' = N - s and the other y parity: the same sender, which EIP-2 forbids), raw and
in the MsgEthereumTx envelope a Cosmos client broadcasts, made by hand as the node's own wrapping refuses it."""

import rlp
from eth.constants import SECPK1_N
from eth_hash.auto import keccak

from chaind.pb.cosmos.tx.v1beta1 import tx_pb2
from chaind.pb.ethermint.evm.v1 import tx_pb2 as evm_tx


def twin(raw):
    """The high-s twin of the signed tx `raw` (legacy or typed) signed with a low s."""
    typed = raw[0] < 0xc0
    items = rlp.decode(raw[1:] if typed else raw)
    v, r, s = (int.from_bytes(item, "big") for item in items[-3:])
    assert 0 < s <= SECPK1_N // 2, "eth_account signs with a low s"
    parity = v if typed else v - (35 if v >= 35 else 27)
    items[-3:] = [v + 1 - 2 * (parity % 2), r, SECPK1_N - s]
    return raw[:1] * typed + rlp.encode(items)


def envelope(low_envelope, raw):
    """`low_envelope`, the node's envelope of a tx, carrying instead the same tx signed as in `raw` (its twin)."""
    typed = raw[0] < 0xc0
    v, r, s = rlp.decode(raw[1:] if typed else raw)[-3:]
    tx_raw = tx_pb2.TxRaw.FromString(low_envelope)
    body = tx_pb2.TxBody.FromString(tx_raw.body_bytes)
    msg = evm_tx.MsgEthereumTx.FromString(body.messages[0].value)
    data = getattr(evm_tx, msg.data.type_url.rsplit(".", 1)[1]).FromString(msg.data.value)
    data.v, data.r, data.s = v, r, s
    msg.data.value = data.SerializeToString()
    msg.hash = "0x" + keccak(raw).hex()
    body.messages[0].value = msg.SerializeToString()
    tx_raw.body_bytes = body.SerializeToString()
    return tx_raw.SerializeToString()
