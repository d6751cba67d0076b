"""Native txs signed as a Cosmos client signs them (SIGN_MODE_DIRECT or LEGACY_AMINO_JSON; one key, several, or a
multisig): the tests' and benches' builder; the chain itself only decodes and verifies them (chaind/chain/txs.py)."""

from google.protobuf import any_pb2

from chaind.chain import amino, txs
from chaind.crypto import keys, multisig
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.crypto.multisig import keys_pb2 as multisig_keys
from chaind.pb.cosmos.crypto.multisig.v1beta1 import multisig_pb2
from chaind.pb.cosmos.crypto.secp256k1 import keys_pb2 as secp256k1_keys
from chaind.pb.cosmos.tx.signing.v1beta1 import signing_pb2
from chaind.pb.cosmos.tx.v1beta1 import tx_pb2
from chaind.pb.ethermint.crypto.v1.ethsecp256k1 import keys_pb2 as ethsecp256k1

# The pubkey type URL each kind of key signs under (the inverse of txs.KEY_TYPES, eth_secp256k1 by its Evmos URL).
PUBKEY_URLS = {keys.ETH_SECP256K1: txs.ETH_PUBKEY, keys.SECP256K1: txs.SECP256K1_PUBKEY}


def pack(url, message):
    return any_pb2.Any(type_url=url, value=message.SerializeToString())


def build_native(messages, key, chain_id, account_number, sequence, fee, gas_limit, memo="",
                 pubkey_url=txs.ETH_PUBKEY, amino_encoder=None, timeout_height=0, payer="", granter=""):
    """Sign native messages with an eth_secp256k1 key into TxRaw bytes: SIGN_MODE_DIRECT, or
    SIGN_MODE_LEGACY_AMINO_JSON given the app's amino.Encoder.

    With pubkey_url SECP256K1_PUBKEY the key signs as a standard Cosmos secp256k1 key instead.
    """
    return build_signed(messages, [(key, account_number, sequence, pubkey_url)], chain_id, fee, gas_limit, memo=memo,
                        amino_encoder=amino_encoder, timeout_height=timeout_height, payer=payer, granter=granter)


def build_signed(messages, signers, chain_id, fee, gas_limit, memo="", amino_encoder=None, timeout_height=0,
                 payer="", granter=""):
    """Native messages signed by several keys into TxRaw bytes; signers: (key, account number, sequence,
    pubkey_url) in the SDK's signer order. payer/granter: the fee's bech32 payer and granter."""
    body = tx_pb2.TxBody(messages=[pack(url, m) for url, m in messages], memo=memo, timeout_height=timeout_height)
    mode = signing_pb2.SIGN_MODE_DIRECT if amino_encoder is None else signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON
    auth = tx_pb2.AuthInfo(
        signer_infos=[tx_pb2.SignerInfo(public_key=pack(url, ethsecp256k1.PubKey(key=key.compressed_public_key)),
                                        sequence=sequence,
                                        mode_info=tx_pb2.ModeInfo(single=tx_pb2.ModeInfo.Single(mode=mode)))
                      for key, _, sequence, url in signers],
        fee=tx_pb2.Fee(amount=[coin_pb2.Coin(denom=d, amount=str(a)) for d, a in fee], gas_limit=gas_limit,
                       payer=payer, granter=granter))
    body_bytes, auth_bytes = body.SerializeToString(), auth.SerializeToString()
    signatures = []
    for key, account_number, sequence, url in signers:
        if amino_encoder is None:
            doc = tx_pb2.SignDoc(body_bytes=body_bytes, auth_info_bytes=auth_bytes, chain_id=chain_id,
                                 account_number=account_number).SerializeToString()
        else:
            doc = amino.sign_bytes(amino_encoder, body, auth.fee, chain_id, account_number, sequence)
        # A type URL the chain does not know still gets an eth signature, so tests can send one.
        signatures.append(key.sign(txs.KEY_TYPES.get(url, keys.ETH_SECP256K1), doc))
    return tx_pb2.TxRaw(body_bytes=body_bytes, auth_info_bytes=auth_bytes, signatures=signatures).SerializeToString()


def multisig_tx(chain, members, threshold, signers, messages, gas=300000, mangle=None):
    """A tx of the `threshold`-of-`members` multisig ((key type, AccountKey) each) signed by members `signers`."""
    address = multisig.address(threshold, [(t, k.compressed_public_key) for t, k in members])
    view = chain.app.view()
    found = chain.app.keepers["auth"].account(view, address)
    number = found[0] if found else 0
    pubkey = multisig_keys.LegacyAminoPubKey(threshold=threshold, public_keys=[
        pack(PUBKEY_URLS[t], secp256k1_keys.PubKey(key=k.compressed_public_key)) for t, k in members])
    extra, elems = multisig.bit_array(len(members), signers)
    direct = tx_pb2.ModeInfo(single=tx_pb2.ModeInfo.Single(mode=signing_pb2.SIGN_MODE_DIRECT))
    mode = tx_pb2.ModeInfo(multi=tx_pb2.ModeInfo.Multi(
        bitarray=multisig_pb2.CompactBitArray(extra_bits_stored=extra, elems=elems),
        mode_infos=[direct] * len(signers)))
    body = tx_pb2.TxBody(messages=[pack(url, m) for url, m in messages])
    auth_info = tx_pb2.AuthInfo(
        signer_infos=[tx_pb2.SignerInfo(public_key=pack(multisig.PUBKEY_URL, pubkey), mode_info=mode,
                                        sequence=view.accounts.get_nonce(address))],
        fee=tx_pb2.Fee(amount=[coin_pb2.Coin(denom=chain.genesis.base_denom,
                                             amount=str(chain.app.next_base_fee() * gas))], gas_limit=gas))
    body_bytes, auth_bytes = body.SerializeToString(), auth_info.SerializeToString()
    doc = tx_pb2.SignDoc(body_bytes=body_bytes, auth_info_bytes=auth_bytes, chain_id=chain.genesis.chain_id,
                         account_number=number).SerializeToString()
    signatures = [members[i][1].sign(members[i][0], doc) for i in signers]
    if mangle:
        signatures = mangle(signatures)
    aggregate = multisig_pb2.MultiSignature(signatures=signatures).SerializeToString()
    return tx_pb2.TxRaw(body_bytes=body_bytes, auth_info_bytes=auth_bytes, signatures=[aggregate]).SerializeToString()
