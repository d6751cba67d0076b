"""The native tx envelope: Cosmos SDK `TxRaw` bytes, carrying either an EVM tx or native messages.

An EVM tx travels as `/ethermint.evm.v1.MsgEthereumTx` (as Evmos v20 builds it), so every tx
has a native hash (SHA-256 of these bytes) and an EVM tx also its own keccak hash.
"""

import hashlib

import attrs
import rlp
from eth.vm.forks.prague import PragueVM
from eth_hash.auto import keccak
from eth_utils import ValidationError
from google.protobuf import any_pb2
from google.protobuf.message import DecodeError

from chaind.chain import errors, evm_decode, evm_sender, web3tx
from chaind.crypto import keys, multisig
from chaind.crypto.addresses import checksum_address
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.crypto.multisig import keys_pb2 as multisig_keys
from chaind.pb.cosmos.crypto.multisig.v1beta1 import multisig_pb2
from chaind.pb.cosmos.crypto.secp256k1 import keys_pb2 as secp256k1
from chaind.pb.cosmos.tx.signing.v1beta1 import signing_pb2
from chaind.pb.cosmos.tx.v1beta1 import tx_pb2
from chaind.pb.ethermint.evm.v1 import tx_pb2 as evm_tx

MSG_ETHEREUM_TX = "/ethermint.evm.v1.MsgEthereumTx"
EXTENSION_ETHEREUM_TX = "/ethermint.evm.v1.ExtensionOptionsEthereumTx"
ETH_PUBKEY = "/ethermint.crypto.v1.ethsecp256k1.PubKey"
# cosmos/evm's name for the same key message: what @cosmjs knows, so what our accounts show.
COSMOS_EVM_PUBKEY = "/cosmos.evm.crypto.v1.ethsecp256k1.PubKey"
ETH_PUBKEYS = (ETH_PUBKEY, COSMOS_EVM_PUBKEY)
SECP256K1_PUBKEY = "/cosmos.crypto.secp256k1.PubKey"
MULTISIG = "multisig"          # NativeTx.key_type of a LegacyAminoPubKey signer
MSG_SEND = "/cosmos.bank.v1beta1.MsgSend"
MSG_MULTI_SEND = "/cosmos.bank.v1beta1.MsgMultiSend"
_EVM_TX_DATA = {
    0: ("/ethermint.evm.v1.LegacyTx", evm_tx.LegacyTx),
    1: ("/ethermint.evm.v1.AccessListTx", evm_tx.AccessListTx),
    2: ("/ethermint.evm.v1.DynamicFeeTx", evm_tx.DynamicFeeTx),
}
_BY_URL = {url: (type_id, cls) for type_id, (url, cls) in _EVM_TX_DATA.items()}
_GETH_TX_TYPES = {0: "types.LegacyTx", 1: "types.AccessListTx", 2: "types.DynamicFeeTx"}

_builder = PragueVM.get_transaction_builder()

def native_hash(raw):
    return hashlib.sha256(raw).digest()


@attrs.frozen
class EvmTx:
    """A decoded, signature-checked EVM tx inside its envelope."""

    raw: bytes             # the envelope (TxRaw) bytes
    hash: bytes            # native hash
    evm: object            # py-evm signed transaction
    evm_hash: bytes
    sender: bytes
    impersonated: bool = False  # sent by a dev node for an account it impersonates: no signature
    kind = "evm"

    @property
    def nonce(self):
        return self.evm.nonce

    @property
    def gas(self):
        return self.evm.gas

    @property
    def max_fee(self):
        return self.evm.max_fee_per_gas

    @property
    def max_tip(self):
        return self.evm.max_priority_fee_per_gas

    @property
    def type_id(self):
        return self.evm.type_id or 0


@attrs.frozen
class Multisig:
    """A K-of-N LegacyAminoPubKey signer: its members, and who signed (member index, signature) in order."""

    threshold: int
    members: tuple         # (key type, 33-byte compressed key)
    signed: tuple          # (member index, signature)
    modes: tuple = ()      # each signing member's sign mode, in the order of `signed`


@attrs.frozen
class Signer:
    """One signer of a native tx: its SignerInfo (key, sequence, sign mode) and its signature, decoded."""

    address: bytes
    public_key: bytes      # 33-byte compressed secp256k1 key (a multisig: its amino bytes)
    key_type: str          # keys.ETH_SECP256K1, keys.SECP256K1 or MULTISIG: how it signs and makes its address
    sequence: int
    signature: bytes
    sign_mode: int = signing_pb2.SIGN_MODE_DIRECT   # a single key's; a multisig's members have their own
    multisig: Multisig = None


@attrs.frozen
class NativeTx:
    """A decoded native tx: its signers in the order of its SignerInfos (the SDK's GetSigners order: each
    message's signers, deduplicated, then a fee payer named apart), each a single key or a multisig.

    The first signer is the tx's `sender`: the mempool orders txs by its sequence, as the SDK's does.
    """

    raw: bytes
    hash: bytes
    body: object           # cosmos.tx.v1beta1.TxBody
    auth_info: object      # cosmos.tx.v1beta1.AuthInfo
    signers: tuple         # Signer, in order
    messages: tuple        # (MsgHandler, decoded message proto), in order
    web3: object = None    # the ExtensionOptionsWeb3Tx of Evmos' legacy EIP-712 road (chain/web3tx.py)
    kind = "native"

    @property
    def sender(self):
        return self.signers[0].address

    @property
    def nonce(self):
        return self.signers[0].sequence

    @property
    def public_key(self):
        return self.signers[0].public_key

    @property
    def key_type(self):
        return self.signers[0].key_type

    @property
    def signature(self):
        return self.signers[0].signature

    @property
    def multisig(self):
        return self.signers[0].multisig

    @property
    def sign_mode(self):
        return self.signers[0].sign_mode

    @property
    def gas(self):
        return self.auth_info.fee.gas_limit

    @property
    def fee(self):
        return tuple((c.denom, int(c.amount)) for c in self.auth_info.fee.amount)


def wrap_evm(raw_evm, chain_id, base_denom):
    """Decode a signed EVM tx (RLP or typed) and wrap it as Evmos' JSON-RPC does."""
    try:
        tx = evm_decode.decode(raw_evm)
    except Exception as e:  # noqa: BLE001 (untrusted bytes: any decode failure is the sender's error)
        raise errors.decode_error(f"rlp: {e}") from None
    return _wrap(tx, raw_evm, chain_id, base_denom)


# Anvil's r and s for a tx sent as an impersonated account: no key signed it.
IMPERSONATED_R = IMPERSONATED_S = 1


def wrap_impersonated(fields, sender, chain_id, base_denom):
    """An EVM tx from `sender` that no key signed (a dev node's impersonated account), wrapped as a
    signed one is, with `sender` in MsgEthereumTx.from and Anvil's marker signature (r = s = 1).
    `fields`: chainId, nonce, gas, to, value, data, and gasPrice or maxFeePerGas/maxPriorityFeePerGas."""
    to = bytes.fromhex(fields["to"][2:]) if fields.get("to") else b""
    common = [fields["gas"], to, fields["value"], fields["data"]]
    if "gasPrice" in fields:
        encoded = rlp.encode([fields["nonce"], fields["gasPrice"], *common,
                              chain_id * 2 + 35, IMPERSONATED_R, IMPERSONATED_S])
    else:
        encoded = b"\x02" + rlp.encode([chain_id, fields["nonce"], fields["maxPriorityFeePerGas"],
                                        fields["maxFeePerGas"], *common, [], 0, IMPERSONATED_R, IMPERSONATED_S])
    return _wrap(_builder.decode(encoded), encoded, chain_id, base_denom, sender)


def _wrap(tx, encoded, chain_id, base_denom, impersonated_sender=None):
    """`tx` is py-evm's decode of `encoded`: strict RLP, so `encoded` is what tx.encode() would give."""
    type_id = tx.type_id or 0
    if type_id not in _EVM_TX_DATA:
        raise errors.TxError(errors.SDK, 2, f"transaction type {type_id} not supported: tx parse error",
                             "transaction type not supported")
    for field, value in (("Nonce", tx.nonce), ("Gas", tx.gas)):
        # uint64 in geth's tx structs and in MsgEthereumTx's: geth's decode refuses more.
        if value >= 2**64:
            raise errors.decode_error(f"rlp: input string too long for uint64, decoding into "
                                      f"({_GETH_TX_TYPES[type_id]}).{field}")
    url, cls = _EVM_TX_DATA[type_id]
    data = cls(
        nonce=tx.nonce,
        gas=tx.gas,
        to=checksum_address(tx.to) if tx.to else "",
        value=str(tx.value),
        data=tx.data,
        v=_int_bytes(tx.v if type_id == 0 else tx.y_parity),
        r=_int_bytes(tx.r),
        s=_int_bytes(tx.s),
    )
    if type_id == 0:
        data.gas_price = str(tx.gas_price)
    else:
        data.chain_id = str(tx.chain_id)
        for address, slots in tx.access_list:
            data.accesses.add(address=checksum_address(address),
                              storage_keys=["0x" + bytes(s).rjust(32, b"\0").hex() if isinstance(s, bytes)
                                            else "0x%064x" % s for s in slots])
        if type_id == 1:
            data.gas_price = str(tx.gas_price)
        else:
            data.gas_tip_cap = str(tx.max_priority_fee_per_gas)
            data.gas_fee_cap = str(tx.max_fee_per_gas)
    fee_price = tx.gas_price if type_id in (0, 1) else tx.max_fee_per_gas
    msg = evm_tx.MsgEthereumTx(data=_any(url, data), hash="0x" + keccak(encoded).hex())
    if impersonated_sender is not None:
        setattr(msg, "from", checksum_address(impersonated_sender))
        msg.hash = "0x" + _impersonated_hash(tx, impersonated_sender).hex()
    body = tx_pb2.TxBody(messages=[_any(MSG_ETHEREUM_TX, msg)],
                         extension_options=[_any(EXTENSION_ETHEREUM_TX, evm_tx.ExtensionOptionsEthereumTx())])
    fee = tx_pb2.Fee(gas_limit=tx.gas)
    if fee_price * tx.gas > 0:
        fee.amount.append(coin_pb2.Coin(denom=base_denom, amount=str(fee_price * tx.gas)))
    raw = tx_pb2.TxRaw(body_bytes=body.SerializeToString(),
                       auth_info_bytes=tx_pb2.AuthInfo(fee=fee).SerializeToString()).SerializeToString()
    if impersonated_sender is not None:
        return _decode_evm_envelope(raw, body, chain_id)
    return _checked_evm(raw, tx, encoded, chain_id)


def decode(raw, chain_id, handlers):
    """Decode envelope bytes into an EvmTx or NativeTx, checking signatures; handlers are the app's
    MsgHandlers by type URL (App.handlers)."""
    try:
        tx_raw = tx_pb2.TxRaw.FromString(raw)
        body = tx_pb2.TxBody.FromString(tx_raw.body_bytes)
        auth_info = tx_pb2.AuthInfo.FromString(tx_raw.auth_info_bytes)
    except DecodeError as e:
        raise errors.decode_error(str(e) or "invalid protobuf") from None
    if not body.messages:
        raise errors.invalid_request("must contain at least one message")
    urls = [m.type_url for m in body.messages]
    if MSG_ETHEREUM_TX in urls:
        return _decode_evm_envelope(raw, body, chain_id)
    return _decode_native(raw, tx_raw, body, auth_info, handlers)


def _decode_evm_envelope(raw, body, chain_id):
    if len(body.messages) != 1:
        raise errors.invalid_request("an Ethereum tx envelope carries exactly one MsgEthereumTx")
    try:
        msg = evm_tx.MsgEthereumTx.FromString(body.messages[0].value)
        type_id, cls = _BY_URL[msg.data.type_url]
        data = cls.FromString(msg.data.value)
    except (DecodeError, KeyError) as e:
        raise errors.decode_error(f"invalid MsgEthereumTx: {e}") from None
    to = bytes.fromhex(data.to[2:]) if data.to else b""
    value = _decimal(data.value)
    v, r, s = (int.from_bytes(x, "big") for x in (data.v, data.r, data.s))
    access_list = [[bytes.fromhex(a.address[2:]), [bytes.fromhex(k[2:]) for k in a.storage_keys]]
                   for a in getattr(data, "accesses", ())]
    if type_id == 0:
        encoded = rlp.encode([data.nonce, _decimal(data.gas_price), data.gas, to, value, data.data, v, r, s])
    elif type_id == 1:
        encoded = b"\x01" + rlp.encode([_decimal(data.chain_id), data.nonce, _decimal(data.gas_price),
                                        data.gas, to, value, data.data, access_list, v, r, s])
    else:
        encoded = b"\x02" + rlp.encode([_decimal(data.chain_id), data.nonce, _decimal(data.gas_tip_cap),
                                        _decimal(data.gas_fee_cap), data.gas, to, value, data.data,
                                        access_list, v, r, s])
    try:
        tx = evm_decode.decode(encoded)
    except Exception as e:  # noqa: BLE001 (untrusted bytes: any decode failure is the sender's error)
        raise errors.decode_error(f"invalid Ethereum tx: {e}") from None
    claimed = getattr(msg, "from")
    if claimed and r == IMPERSONATED_R and s == IMPERSONATED_S:
        # Whether such a tx may run is the app's call (App.allow_impersonated), never the decoder's.
        sender = bytes.fromhex(claimed[2:])
        return EvmTx(raw=raw, hash=native_hash(raw), evm=Impersonated(tx, sender),
                     evm_hash=_impersonated_hash(tx, sender), sender=sender, impersonated=True)
    return _checked_evm(raw, tx, encoded, chain_id)


def _impersonated_hash(tx, sender):
    """Anvil's hash of an impersonated tx: keccak of its encoding and the sender, so that the same
    fields sent as two accounts are two txs."""
    return keccak(tx.encode() + sender)


class Impersonated:
    """A py-evm transaction whose sender is given rather than recovered from a signature."""

    def __init__(self, tx, sender):
        self._tx = tx
        self.sender = sender

    def __getattr__(self, name):
        return getattr(self._tx, name)

    def check_signature_validity(self):
        pass

    def validate(self):
        # The signed tx's checks but the signature's.
        if self._tx.gas < self._tx.intrinsic_gas:
            raise ValidationError("Insufficient gas")

    def get_sender(self):
        return self.sender


def _checked_evm(raw, tx, encoded, chain_id):
    """`tx` is py-evm's decode of `encoded`."""
    sender = evm_sender.validated_sender(tx, encoded)
    if sender is None:
        if evm_sender.signature_values_refused(tx):
            # geth's signer refuses these for every tx type, py-evm a legacy tx's high s only.
            raise errors.invalid_sender(evm_sender.INVALID_SIGNATURE_VALUES,
                                        f"invalid sender: {evm_sender.INVALID_SIGNATURE_VALUES}")
        # py-evm's own checks, which word the error.
        try:
            tx.validate()
            sender = tx.sender
        except Exception as e:  # noqa: BLE001 (py-evm's validate raises several kinds; any is an invalid sender)
            raise errors.invalid_sender(str(e), "invalid sender") from None
    if tx.chain_id is not None and tx.chain_id != chain_id:
        raise errors.invalid_chain_id(f"invalid chain id for signer: have {tx.chain_id} want {chain_id}")
    return EvmTx(raw=raw, hash=native_hash(raw), evm=tx, evm_hash=keccak(encoded), sender=sender)


def _decode_native(raw, tx_raw, body, auth_info, handlers):
    web3 = None
    if body.extension_options and body.extension_options[0].type_url == web3tx.URL:
        web3 = web3tx.decode(body.extension_options[0])     # the signature is checked there (the ante's call)
    elif body.extension_options or body.non_critical_extension_options:
        raise errors.unknown_request("extension options are not supported for native txs")
    if not tx_raw.signatures:
        raise errors.no_signatures()
    if len(auth_info.signer_infos) != len(tx_raw.signatures):
        # Which signers the messages need is the ante's question (App.check_signers); this is the count
        # of what the tx carries.
        raise errors.unauthorized(f"invalid number of signer infos; expected {len(tx_raw.signatures)}, "
                                  f"got {len(auth_info.signer_infos)}")
    signers = tuple(_signer(info, signature)
                    for info, signature in zip(auth_info.signer_infos, tx_raw.signatures, strict=True))
    messages = []
    for any_msg in body.messages:
        handler = handlers.get(any_msg.type_url)
        if handler is None:
            raise errors.unknown_request(f"unrecognized message type {any_msg.type_url!r}")
        try:
            messages.append((handler, handler.message_class.FromString(any_msg.value)))
        except DecodeError as e:
            raise errors.decode_error(str(e)) from None
    return NativeTx(raw=raw, hash=native_hash(raw), body=body, auth_info=auth_info, signers=signers,
                    messages=tuple(messages), web3=web3)


def _signer(info, signature):
    """A Signer of one SignerInfo and its signature: a single key, or a multisig."""
    if info.public_key.type_url == multisig.PUBKEY_URL:
        multi = _decode_multisig(info, signature)
        return Signer(address=multisig.address(multi.threshold, multi.members), key_type=MULTISIG,
                      public_key=multisig.amino_bytes(multi.threshold, multi.members), sequence=info.sequence,
                      signature=signature, multisig=multi)
    key_type, public_key = _single_key(info.public_key)
    return Signer(address=keys.address_of(key_type, public_key), public_key=public_key, key_type=key_type,
                  sequence=info.sequence, signature=signature, sign_mode=_single_mode(info.mode_info))


def _single_key(any_key):
    """(key type, compressed key) of a single-key Any, checked to be a point on the curve."""
    key_type = KEY_TYPES.get(any_key.type_url)
    if key_type is None:
        raise errors.TxError(errors.SDK, 8, f"unsupported public key type {any_key.type_url!r}: invalid pubkey")
    try:
        # ethsecp256k1.PubKey and secp256k1.PubKey are the same message: bytes key = 1.
        public_key = secp256k1.PubKey.FromString(any_key.value).key
        keys.address_of(key_type, public_key)
    except Exception:  # noqa: BLE001 (untrusted bytes: any decode failure is the sender's error)
        raise errors.TxError(errors.SDK, 8, f"invalid {key_type} public key: invalid pubkey") from None
    return key_type, public_key


def _decode_multisig(signer, signature):
    """The Multisig of a LegacyAminoPubKey signer: ModeInfo.Multi names who signed, MultiSignature holds their
    signatures, each in its own mode (the SDK's VerifyMultisignature checks these counts)."""
    try:
        key = multisig_keys.LegacyAminoPubKey.FromString(signer.public_key.value)
        signatures = multisig_pb2.MultiSignature.FromString(signature).signatures
    except DecodeError as e:
        raise errors.decode_error(f"invalid multisig: {e}") from None
    if not 0 < key.threshold <= len(key.public_keys):
        raise errors.TxError(errors.SDK, 8, f"invalid multisig threshold {key.threshold} of "
                             f"{len(key.public_keys)} keys: invalid pubkey")
    members = []
    for member in key.public_keys:
        if member.type_url not in (ETH_PUBKEY, SECP256K1_PUBKEY):
            raise errors.TxError(errors.SDK, 8, f"unsupported multisig member key type {member.type_url!r}: "
                                 "invalid pubkey")
        members.append(_single_key(member))
    if signer.mode_info.WhichOneof("sum") != "multi":
        raise errors.unauthorized("a multisig signer needs ModeInfo.Multi")
    multi = signer.mode_info.multi
    size = multisig.bit_array_size(multi.bitarray.extra_bits_stored, multi.bitarray.elems)
    if size != len(members):
        raise errors.unauthorized(f"bit array size is incorrect {len(members)}")
    indexes = multisig.set_bits(multi.bitarray.extra_bits_stored, multi.bitarray.elems)
    if len(signatures) < key.threshold or len(signatures) > size:
        raise errors.unauthorized(f"signature size is incorrect {len(signatures)}")
    if len(indexes) < key.threshold:
        raise errors.unauthorized(f"minimum number of signatures not set, have {len(indexes)}, "
                                  f"expected {key.threshold}")
    if len(indexes) != len(signatures) or len(multi.mode_infos) != len(signatures):
        raise errors.unauthorized(f"{len(indexes)} members marked as signing, {len(multi.mode_infos)} modes and "
                                  f"{len(signatures)} signatures")
    modes = tuple(_single_mode(mode) for mode in multi.mode_infos)
    return Multisig(threshold=key.threshold, members=tuple(members),
                    signed=tuple(zip(indexes, signatures, strict=True)), modes=modes)


def _single_mode(mode_info):
    """A single key's sign mode. Which modes verify is the ante's question (simulation checks none)."""
    if mode_info.WhichOneof("sum") != "single":
        raise errors.unauthorized("a single-key signer needs ModeInfo.Single")
    return mode_info.single.mode


# Public key type URLs a native tx may be signed with, and the kind of key each one is.
KEY_TYPES = {ETH_PUBKEY: keys.ETH_SECP256K1, COSMOS_EVM_PUBKEY: keys.ETH_SECP256K1,
              SECP256K1_PUBKEY: keys.SECP256K1}


def sign_doc_bytes(tx, chain_id, account_number):
    """The SIGN_MODE_DIRECT SignDoc a native tx's signer signed."""
    tx_raw = tx_pb2.TxRaw.FromString(tx.raw)
    return tx_pb2.SignDoc(body_bytes=tx_raw.body_bytes, auth_info_bytes=tx_raw.auth_info_bytes,
                          chain_id=chain_id, account_number=account_number).SerializeToString()


def _any(url, message):
    return any_pb2.Any(type_url=url, value=message.SerializeToString())


def _int_bytes(value):
    return value.to_bytes((value.bit_length() + 7) // 8, "big")


def _decimal(text):
    if not text:
        return 0
    if not text.isdigit():
        raise errors.decode_error(f"invalid integer {text!r}")
    return int(text)
