"""The legacy EIP-712 road of Evmos up to v15: a native tx carrying ExtensionOptionsWeb3Tx (typed data chain id,
fee payer, and the MetaMask signature over the legacy typed data), checked as LegacyEip712SigVerificationDecorator.

Evmos v16 dropped this road (v20 answers "unsupported extension option"); wallets built on evmosjs' legacy
EIP-712 still sign it, so it is served. Every refusal is the decorator's: code 4, the inner error in its log.
"""

from eth_keys import keys as eth_keys
from google.protobuf.message import DecodeError

from chaind.chain import amino, eip712, eip712_legacy, errors
from chaind.crypto import addresses, keys
from chaind.pb.cosmos.tx.signing.v1beta1 import signing_pb2
from chaind.pb.cosmos.tx.v1beta1 import tx_pb2
from chaind.pb.ethermint.types.v1 import web3_pb2

URL = "/ethermint.types.v1.ExtensionOptionsWeb3Tx"


def decode(option):
    """The ExtensionOptionsWeb3Tx of an extension option Any."""
    try:
        return web3_pb2.ExtensionOptionsWeb3Tx.FromString(option.value)
    except DecodeError as e:
        raise errors.decode_error(f"invalid ExtensionOptionsWeb3Tx: {e}") from None


def verify(tx, encoder, chain_id, account_number, prefix):
    """Raise the decorator's TxError unless tx.web3's fee payer signature signs the tx's legacy typed data."""
    if len(tx.signers) != 1:
        raise errors.TxError(errors.SDK, 14, f"invalid number of signers ({len(tx.signers)});  EIP712 signatures "
                             "allows just one signature: too many signatures")
    try:
        _verify(tx, encoder, chain_id, account_number, prefix)
    except _Refused as e:
        raise errors.unauthorized(f"signature verification failed; please verify account number ({account_number}) "
                                  f"and chain-id ({chain_id}): {e}") from None


class _Refused(Exception):
    pass


# The SDK's error texts the decorator wraps (types/errors).
_NOT_SUPPORTED = "feature not supported"
_TOO_MANY_SIGNATURES = "too many signatures"
_UNKNOWN_EXTENSION = "unknown extension options"
_INVALID_SIGNER = "tx intended signer does not match the given signer"
_HALF_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141 // 2     # secp256k1's order, halved


def _verify(tx, encoder, chain_id, account_number, prefix):  # noqa: C901 (the extension's checks, in Evmos' order)
    if tx.multisig is not None:
        raise _Refused("unexpected SignatureData *signing.MultiSignatureData: too many signatures")
    if tx.sign_mode != signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON:
        raise _Refused(f"unexpected SignatureData *signing.SingleSignatureData: wrong SignMode: {_NOT_SUPPORTED}")
    if tx.signature:
        raise _Refused("invalid signature value; EIP712 must have the cosmos transaction signature empty: "
                       + _TOO_MANY_SIGNATURES)
    # legacytx.StdSignBytes with StdFee{Amount, Gas}: the fee's payer and granter are not in this doc.
    fee = tx_pb2.Fee(amount=tx.auth_info.fee.amount, gas_limit=tx.auth_info.fee.gas_limit)
    sign_bytes = amino.sign_bytes(encoder, tx.body, fee, chain_id, account_number, tx.nonce)
    try:
        chain_number = eip712.chain_number(chain_id)
    except eip712.TypedDataError:
        raise _Refused(f"failed to parse chain-id: {chain_id}: invalid chain-id") from None
    if len(tx.body.extension_options) != 1:
        raise _Refused(f"tx doesn't contain expected amount of extension options: {_UNKNOWN_EXTENSION}")
    option = tx.web3
    if option.typed_data_chain_id != chain_number:
        raise _Refused("invalid chain-id: invalid chain-id")
    if not option.fee_payer:
        raise _Refused(f"no feePayer on ExtensionOptionsWeb3Tx: {_UNKNOWN_EXTENSION}")
    try:
        fee_payer = addresses.from_bech32(option.fee_payer, prefix)
    except addresses.AddressError as e:
        raise _Refused(f"failed to parse feePayer from ExtensionOptionsWeb3Tx: {e}") from None
    try:
        # Evmos writes the parsed address back (lowercase); a valid lowercase one reads the same.
        payer_text = option.fee_payer if option.fee_payer.islower() else addresses.to_bech32(prefix, fee_payer)
        digest = eip712_legacy.digest(sign_bytes, option.typed_data_chain_id, tx.messages[0][1], payer_text,
                                      encoder.any_types)
    except eip712.TypedDataError as e:
        raise _Refused(f"failed to create EIP-712 typed data from tx: {e}") from None
    signature = option.fee_payer_sig
    if len(signature) != 65:
        raise _Refused(f"signature length doesn't match typical [R||S||V] signature 65 bytes: {_INVALID_SIGNER}")
    # MetaMask's V is 27/28; the recovery wants 0/1.
    if signature[64] in (27, 28):
        signature = signature[:64] + bytes([signature[64] - 27])
    try:
        recovered = eth_keys.Signature(signature).recover_public_key_from_msg_hash(digest)
    except Exception:  # noqa: BLE001 (eth_keys raises several kinds; any is a bad signature)
        raise _Refused("failed to recover delegated fee payer from sig: invalid signature recovery id") from None
    compressed = recovered.to_compressed_bytes()
    if tx.key_type != keys.ETH_SECP256K1 or compressed != tx.public_key:
        raise _Refused(f"feePayer pubkey {_key_text(tx.key_type, tx.public_key)} is different from transaction "
                       f"pubkey EthPubKeySecp256k1{{{compressed.hex().upper()}}}: invalid pubkey")
    signer = tx.sender          # the recovered key is the tx's own, so is its address
    if signer != fee_payer:
        raise _Refused(f"failed to verify delegated fee payer {addresses.to_bech32(prefix, signer)} signature: "
                       + _INVALID_SIGNER)
    # go-ethereum's VerifySignature of the key just recovered from this digest and signature: it holds unless S is
    # in the upper half, which recovery takes and VerifySignature refuses (a malleable twin).
    if int.from_bytes(signature[32:64], "big") > _HALF_N:
        raise _Refused(f"unable to verify signer signature of EIP712 typed data: {_INVALID_SIGNER}")


def _key_text(key_type, public_key):
    name = "EthPubKeySecp256k1" if key_type == keys.ETH_SECP256K1 else "PubKeySecp256k1"
    return f"{name}{{{public_key.hex().upper()}}}"
