"""The `tx` commands that take a tx already built (a JSON file, as --generate-only prints it, or wire bytes):
sign, sign-batch, multisign, multisign-batch, validate-signatures, broadcast, encode and decode.
"""

import base64
import json
import sys

import click

from chaind.cli import autocli
from chaind.cli.common import address_bytes, home_option, output_option, pb, prefix, rpc_client, setting, to_bech32
from chaind.cli.keys import find_record, keyring_options, open_keyring
from chaind.cli.tx_factory import (
    ETH_PUBKEY,
    SIGN_MODES,
    Signer,
    base_account,
    broadcast,
    emit_json,
    mode_number,
    raw_bytes,
    sign,
    sign_appended,
    sign_bytes,
    sign_mode_option,
    to_any,
)


def signing_options(f):
    for option in reversed([
        click.option("--chain-id", default=None, help="Chain id (default: client.toml's, else the node's)"),
        click.option("--sequence", type=click.IntRange(min=0), default=None, help="Signer's sequence (offline)"),
        click.option("--account-number", type=click.IntRange(min=0), default=None, help="Signer's account number"),
        click.option("--offline", is_flag=True, help="Do not ask the node"),
        click.option("--node", default=None, envvar="CHAIND_NODE", help="<host>:<port> of the node's CometBFT RPC"),
    ]):
        f = option(f)
    return keyring_options(f)


def _signing_mode(ctx, multisig=False):
    return ctx.params.get("sign_mode") or ("amino-json" if multisig else "direct")


def read_tx(path):
    """A Tx from a JSON file (or - for stdin), as --generate-only and sign print it."""
    try:
        text = sys.stdin.read() if path == "-" else open(path).read()
    except OSError as e:
        raise click.ClickException(f"cannot read {path}: {e.strerror}") from None
    return parse_tx(text, path)


def parse_tx(text, where):
    import importlib

    from google.protobuf import json_format

    from chaind.cli.protojson import ANY_MODULES, from_dict

    for module in ANY_MODULES:
        importlib.import_module("chaind.pb." + module)
    tx_pb2 = pb("cosmos.tx.v1beta1.tx_pb2")
    try:
        return from_dict(json.loads(text), tx_pb2.Tx())
    except (ValueError, json_format.ParseError) as e:
        raise click.ClickException(f"{where} is not a JSON tx: {e}") from None


MULTISIG_PUBKEY = "/cosmos.crypto.multisig.LegacyAminoPubKey"


def multisig_signer_info(record, indexes, sequence, modes):
    """The SignerInfo of a multisig key whose members `indexes` sign, each in its mode ("direct" or "amino-json")."""
    from chaind.crypto import multisig

    tx_pb2 = pb("cosmos.tx.v1beta1.tx_pb2")
    keys_pb2 = pb("cosmos.crypto.multisig.keys_pb2")
    bits = pb("cosmos.crypto.multisig.v1beta1.multisig_pb2")
    from chaind.cli.keys import PUBKEY_URLS

    secp = pb("cosmos.crypto.secp256k1.keys_pb2")
    pubkey = keys_pb2.LegacyAminoPubKey(threshold=record.threshold, public_keys=[
        to_any(PUBKEY_URLS[t], secp.PubKey(key=k)) for t, k in record.members])
    extra, elems = multisig.bit_array(len(record.members), indexes)
    mode_infos = [tx_pb2.ModeInfo(single=tx_pb2.ModeInfo.Single(mode=mode_number(m))) for m in modes]
    return tx_pb2.SignerInfo(
        public_key=to_any(MULTISIG_PUBKEY, pubkey), sequence=sequence,
        mode_info=tx_pb2.ModeInfo(multi=tx_pb2.ModeInfo.Multi(
            bitarray=bits.CompactBitArray(extra_bits_stored=extra, elems=elems), mode_infos=mode_infos)))


def _multisig_record(ring, ctx, name):
    record = find_record(ring, ctx, name)
    if record.type != "multi":
        raise click.ClickException(f"{name} is not a multisig key")
    return record


def _member_index(record, pubkey, what):
    for i, (_, key) in enumerate(record.members):
        if key == pubkey:
            return i
    raise click.ClickException(f"{what} is not a member of the multisig {record.name}")


@click.command("sign")
@click.argument("file")
@click.option("--from", "from_", required=True, help="Signing key (name or address)")
@click.option("--multisig", default=None,
              help="Sign as a member of this multisig key (name or address in the keyring): prints the signature")
@click.option("--multisig-signers", default=None,
              help="With --multisig --sign-mode direct: the comma-separated members who will sign (SIGN_MODE_DIRECT "
                   "signs this choice, so every member names the same ones); amino-json needs no such choice")
@click.option("--output-document", default=None, type=click.Path(dir_okay=False), help="Write to this file")
@click.option("--overwrite", is_flag=True, help="Replace the signatures the tx holds instead of adding this one")
@sign_mode_option(None)
@signing_options
def sign_command(file, from_, multisig, multisig_signers, output_document, overwrite, **_):
    """Sign an unsigned tx JSON file (from --generate-only; - for stdin) and print the signed tx.

    A tx with several signers (messages of several accounts, or a --fee-payer) is signed by each in turn, each
    signature added after the ones the file holds (amino-json keeps the earlier ones valid). With --multisig,
    print this member's signature (for tx multisign) instead. --offline signs without the node, given
    --chain-id, --account-number and --sequence.
    """
    ctx = click.get_current_context()
    tx = read_tx(file)
    signer = Signer(ctx, from_)
    mode = _signing_mode(ctx, multisig is not None)
    if multisig is None:
        if multisig_signers:
            raise click.UsageError("--multisig-signers needs --multisig")
        number, sequence = signer.account()
        signed = sign(tx, signer, number, sequence, mode) if overwrite else \
            sign_appended(tx, signer, number, sequence, mode)
        return _emit_to(ctx, signed, output_document)
    record = _multisig_record(signer.ring, ctx, multisig)
    own = _member_index(record, signer.record.pubkey, from_)
    number, sequence = signer.account(to_bech32(prefix(ctx), record.address))
    if mode == "direct":
        if not multisig_signers:
            raise click.UsageError("--multisig --sign-mode direct needs --multisig-signers: the members who will sign")
        indexes = sorted({_member_index(record, find_record(signer.ring, ctx, n.strip()).pubkey, n.strip())
                          for n in multisig_signers.split(",") if n.strip()})
        if own not in indexes:
            raise click.ClickException(f"--multisig-signers must name the signing key {from_}")
        if len(indexes) < record.threshold:
            raise click.ClickException(f"{len(indexes)} signers named; the multisig needs {record.threshold}")
        del tx.auth_info.signer_infos[:]
        tx.auth_info.signer_infos.append(multisig_signer_info(record, indexes, sequence, ["direct"] * len(indexes)))
    elif multisig_signers:
        raise click.UsageError("--multisig-signers is for --sign-mode direct: amino-json signs no signer choice")
    _emit_to(ctx, _member_signature(ctx, tx, signer, number, sequence, mode), output_document)


def _member_signature(ctx, tx, signer, number, sequence, mode):
    """A multisig member's signature of `tx` as SignatureDescriptors (what tx multisign joins)."""
    from chaind.crypto.keys import ETH_SECP256K1

    signature = signer.key().sign(ETH_SECP256K1, sign_bytes(ctx, tx, signer.chain_id, number, sequence, mode))
    signing = pb("cosmos.tx.signing.v1beta1.signing_pb2")
    keys_pb2 = pb("ethermint.crypto.v1.ethsecp256k1.keys_pb2")
    return signing.SignatureDescriptors(signatures=[signing.SignatureDescriptor(
        public_key=to_any(ETH_PUBKEY, keys_pb2.PubKey(key=signer.record.pubkey)), sequence=sequence,
        data=signing.SignatureDescriptor.Data(single=signing.SignatureDescriptor.Data.Single(
            mode=mode_number(mode), signature=signature)))])


def _emit_to(ctx, message, path):
    if path is None:
        return emit_json(ctx, message)
    from chaind.cli import protojson

    try:
        with open(path, "w") as f:
            f.write(json.dumps(protojson.to_dict(message), separators=(",", ":")) + "\n")
    except OSError as e:
        raise click.ClickException(f"cannot write {path}: {e.strerror}") from None


def _lines(path):
    """The non-empty lines of a file (or - for stdin), numbered from 1."""
    try:
        text = sys.stdin.read() if path == "-" else open(path).read()
    except OSError as e:
        raise click.ClickException(f"cannot read {path}: {e.strerror}") from None
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]


@click.command("sign-batch")
@click.argument("files", nargs=-1, required=True)
@click.option("--from", "from_", required=True, help="Signing key (name or address)")
@click.option("--multisig", default=None,
              help="Sign as a member of this multisig key (name or address in the keyring): prints one signature "
                   "a line, for tx multisign-batch")
@sign_mode_option(None)
@signing_options
def sign_batch(files, from_, multisig, sequence, **_):
    """Sign every tx of FILES (one JSON tx a line, as --generate-only prints them), with consecutive
    sequences from the account's (or --sequence); prints one signed tx a line (with --multisig, one member
    signature a line, amino-json by default)."""
    ctx = click.get_current_context()
    unsigned = [parse_tx(line, f"{path} line {n}") for path in files for n, line in _lines(path)]
    if not unsigned:
        raise click.ClickException("no txs to sign")
    signer = Signer(ctx, from_)
    mode = _signing_mode(ctx, multisig is not None)
    if multisig is None:
        number, first = signer.account()
        for offset, tx in enumerate(unsigned):
            emit_json(ctx, sign(tx, signer, number, first + offset, mode))
        return
    if mode == "direct":
        raise click.UsageError("sign-batch --multisig signs amino-json (direct would need the signing members named)")
    record = _multisig_record(signer.ring, ctx, multisig)
    _member_index(record, signer.record.pubkey, from_)
    number, first = signer.account(to_bech32(prefix(ctx), record.address))
    for offset, tx in enumerate(unsigned):
        emit_json(ctx, _member_signature(ctx, tx, signer, number, first + offset, mode))


@click.command("multisign")
@click.argument("file")
@click.argument("name")
@click.argument("signature_files", nargs=-1, required=True)
@click.option("--output-document", default=None, type=click.Path(dir_okay=False), help="Write to this file")
@signing_options
def multisign(file, name, signature_files, output_document, **_):
    """Join members' signatures (from tx sign --multisig) into the multisig NAME's signed tx."""
    ctx = click.get_current_context()
    from chaind.cli.protojson import from_dict

    tx = read_tx(file)
    record = _multisig_record(open_keyring(ctx), ctx, name)
    signing = pb("cosmos.tx.signing.v1beta1.signing_pb2")
    given = []
    for path in signature_files:
        try:
            with open(path) as f:
                given.append((path, from_dict(json.load(f), signing.SignatureDescriptors())))
        except (OSError, ValueError) as e:
            raise click.ClickException(f"cannot read the signature file {path}: {e}") from None
    chain_id, number = _multisig_account(ctx, record)
    _emit_to(ctx, _joined(ctx, tx, record, given, chain_id, number), output_document)


@click.command("multisign-batch")
@click.argument("file")
@click.argument("name")
@click.argument("signature_files", nargs=-1, required=True)
@click.option("--output-document", default=None, type=click.Path(dir_okay=False), help="Write to this file")
@signing_options
def multisign_batch(file, name, signature_files, output_document, **_):
    """Join members' signatures of a batch: FILE holds one unsigned tx a line, each SIGNATURE_FILE one member's
    signature a line (tx sign-batch --multisig), in the same order; prints one signed tx a line, with
    consecutive sequences of the multisig NAME's account."""
    ctx = click.get_current_context()
    from chaind.cli import protojson

    unsigned = [parse_tx(line, f"{file} line {n}") for n, line in _lines(file)]
    if not unsigned:
        raise click.ClickException(f"{file}: no txs")
    record = _multisig_record(open_keyring(ctx), ctx, name)
    signing = pb("cosmos.tx.signing.v1beta1.signing_pb2")
    batches = []
    for path in signature_files:
        lines = _lines(path)
        if len(lines) != len(unsigned):
            raise click.ClickException(f"{path} holds {len(lines)} signatures for {len(unsigned)} txs")
        try:
            batches.append([(f"{path} line {n}", protojson.from_dict(json.loads(line),
                                                                     signing.SignatureDescriptors()))
                            for n, line in lines])
        except ValueError as e:
            raise click.ClickException(f"cannot read the signature file {path}: {e}") from None
    chain_id, number = _multisig_account(ctx, record)
    out = [_joined(ctx, tx, record, [batch[i] for batch in batches], chain_id, number)
           for i, tx in enumerate(unsigned)]
    sequences = [tx.auth_info.signer_infos[0].sequence for tx in out]
    if sequences != list(range(sequences[0], sequences[0] + len(out))):
        raise click.ClickException(f"the batch's signatures are not for consecutive sequences: {sequences}")
    text = "".join(json.dumps(protojson.to_dict(tx), separators=(",", ":")) + "\n" for tx in out)
    if output_document is None:
        click.echo(text, nl=False)
        return
    try:
        with open(output_document, "w") as f:
            f.write(text)
    except OSError as e:
        raise click.ClickException(f"cannot write {output_document}: {e.strerror}") from None


def _multisig_account(ctx, record):
    """(chain id, account number) a multisig's members signed for: the flags', else the node's."""
    chain_id = setting(ctx, "chain-id", ctx.params.get("chain_id"))
    if not chain_id:
        if ctx.params.get("offline"):
            raise click.ClickException("--offline needs --chain-id")
        chain_id = rpc_client(ctx).call("status")["node_info"]["network"]
    number = ctx.params.get("account_number")
    if number is None:
        if ctx.params.get("offline"):
            raise click.ClickException("--offline needs --account-number")
        number = _account_number(ctx, to_bech32(prefix(ctx), record.address))
    return chain_id, number


def _joined(ctx, tx, record, given, chain_id, number):
    """`tx` signed by the multisig `record` from its members' signatures (given: (where, SignatureDescriptors)),
    each checked against the sign doc of its mode."""
    from chaind.crypto.keys import verify_signed

    keys_pb2 = pb("cosmos.crypto.secp256k1.keys_pb2")
    found, modes, sequences = {}, {}, set()
    by_number = {mode_number(m): m for m in SIGN_MODES}
    for where, descriptors in given:
        for d in descriptors.signatures:
            if d.data.WhichOneof("sum") != "single" or d.data.single.mode not in by_number:
                raise click.ClickException(f"{where}: want a SIGN_MODE_DIRECT or SIGN_MODE_LEGACY_AMINO_JSON "
                                           "signature of one member")
            index = _member_index(record, keys_pb2.PubKey.FromString(d.public_key.value).key, f"the key of {where}")
            found[index] = d.data.single.signature
            modes[index] = by_number[d.data.single.mode]
            sequences.add(d.sequence)
    if len(sequences) != 1:
        raise click.ClickException(f"the signatures were made for different sequences {sorted(sequences)}")
    if len(found) < record.threshold:
        raise click.ClickException(f"{len(found)} signatures; the multisig needs {record.threshold}")
    indexes = sorted(found)
    sequence = sequences.pop()
    del tx.auth_info.signer_infos[:]
    tx.auth_info.signer_infos.append(multisig_signer_info(record, indexes, sequence, [modes[i] for i in indexes]))
    for i in indexes:
        doc = sign_bytes(ctx, tx, chain_id, number, sequence, modes[i])
        if not verify_signed(record.members[i][0], record.members[i][1], doc, found[i]):
            raise click.ClickException(
                f"the signature of member {i} ({to_bech32(prefix(ctx), _member_address(record.members[i]))}) does "
                f"not verify: each member must sign this tx with --multisig-signers naming exactly the members "
                f"whose signatures are given here")
    multi = pb("cosmos.crypto.multisig.v1beta1.multisig_pb2")
    del tx.signatures[:]
    tx.signatures.append(multi.MultiSignature(signatures=[found[i] for i in indexes]).SerializeToString())
    return tx


def _member_address(member):
    from chaind.crypto.keys import address_of

    return address_of(*member)


def _account_number(ctx, address):
    auth = pb("cosmos.auth.v1beta1.query_pb2")
    response = rpc_client(ctx).query(auth, "Query", "Account", address=address)
    from chaind.cli.protojson import message_class

    return base_account(message_class(response.account.type_url).FromString(response.account.value)).account_number


def _message_signers(ctx, tx):
    """The signers a tx's messages name, in order (where the modules' TX tables say each message names it), and
    its fee payer."""
    from chaind.cli.protojson import message_class

    while not isinstance(ctx.command, autocli.ModuleGroup):
        ctx = ctx.parent
    fields = autocli.signer_fields(ctx.command.modules)
    signers = []
    for any_msg in tx.body.messages:
        field = fields.get(any_msg.type_url)
        if field is None:
            raise click.ClickException(f"cannot tell the signer of a {any_msg.type_url}")
        value = getattr(message_class(any_msg.type_url).FromString(any_msg.value), field)
        if not isinstance(value, str):      # a repeated message field: its first element's address
            value = value[0].address if len(value) else ""
        address = address_bytes(value)
        if address not in signers:
            signers.append(address)
    # A fee payer apart from them signs last (the SDK's GetSigners).
    if tx.auth_info.fee.payer and address_bytes(tx.auth_info.fee.payer) not in signers:
        signers.append(address_bytes(tx.auth_info.fee.payer))
    return signers


@click.command("validate-signatures")
@click.argument("file")
@signing_options
def validate_signatures(file, **_):
    """Check a signed tx JSON file's signatures against its signers (account numbers from the node unless
    --offline with --account-number); exits non-zero when one fails."""
    ctx = click.get_current_context()
    from chaind.crypto import keys as crypto_keys
    from chaind.crypto import multisig

    tx = read_tx(file)
    acc = prefix(ctx)
    expected = _message_signers(ctx, tx)
    click.echo("Signers:")
    for i, address in enumerate(expected):
        click.echo(f"  {i}: {to_bech32(acc, address)}")
    chain_id = setting(ctx, "chain-id", ctx.params.get("chain_id"))
    if not chain_id and not ctx.params.get("offline"):
        chain_id = rpc_client(ctx).call("status")["node_info"]["network"]
    infos = tx.auth_info.signer_infos
    success = len(infos) == len(tx.signatures) == len(expected)
    click.echo("\nSignatures:")
    secp = pb("cosmos.crypto.secp256k1.keys_pb2")
    for i, info in enumerate(infos):
        signature = tx.signatures[i] if i < len(tx.signatures) else b""
        if info.public_key.type_url == MULTISIG_PUBKEY:
            key = pb("cosmos.crypto.multisig.keys_pb2").LegacyAminoPubKey.FromString(info.public_key.value)
            members = [(crypto_keys.ETH_SECP256K1 if m.type_url == ETH_PUBKEY else crypto_keys.SECP256K1,
                        secp.PubKey.FromString(m.value).key) for m in key.public_keys]
            address = multisig.address(key.threshold, members)
        else:
            kind = crypto_keys.ETH_SECP256K1 if info.public_key.type_url == ETH_PUBKEY else crypto_keys.SECP256K1
            members = None
            address = crypto_keys.address_of(kind, secp.PubKey.FromString(info.public_key.value).key)
        number = ctx.params.get("account_number")
        if number is None and not ctx.params.get("offline"):
            number = _account_number(ctx, to_bech32(acc, address))
        if number is None or not chain_id:
            raise click.ClickException("--offline needs --chain-id and --account-number")
        def doc(mode_info, number=number, info=info):
            mode = "amino-json" if mode_info.single.mode == mode_number("amino-json") else "direct"
            return sign_bytes(ctx, tx, chain_id, number, info.sequence, mode)

        if members is None:
            valid = crypto_keys.verify_signed(kind, secp.PubKey.FromString(info.public_key.value).key,
                                              doc(info.mode_info), signature)
        else:
            bits = info.mode_info.multi.bitarray
            indexes = multisig.set_bits(bits.extra_bits_stored, bits.elems)
            parts = pb("cosmos.crypto.multisig.v1beta1.multisig_pb2").MultiSignature.FromString(signature).signatures
            valid = len(parts) == len(indexes) == len(info.mode_info.multi.mode_infos) >= key.threshold and all(
                crypto_keys.verify_signed(*members[m], doc(mode), part)
                for m, part, mode in zip(indexes, parts, info.mode_info.multi.mode_infos, strict=True))
        matches = i < len(expected) and expected[i] == address
        success = success and valid and matches
        state = "OK" if valid else "ERROR"
        click.echo(f"  {i}: {to_bech32(acc, address)}\t\t\t[{state}]" + ("" if matches else "  [MISMATCH]"))
    if not success:
        raise click.ClickException("signatures validation failed")


@click.command("broadcast")
@click.argument("file")
@click.option("--node", default=None, envvar="CHAIND_NODE", help="<host>:<port> of the node's CometBFT RPC")
@click.option("--broadcast-mode", type=click.Choice(["sync", "async"]), default=None, help="sync or async")
@home_option
@output_option
def broadcast_command(file, **_):
    """Broadcast a signed tx JSON file (from `tx sign`; - for stdin)."""
    ctx = click.get_current_context()
    tx = read_tx(file)
    if not tx.signatures:
        raise click.ClickException(f"{file}: the tx is not signed")
    broadcast(ctx, raw_bytes(tx))


@click.command()
@click.argument("file")
def encode(file):
    """Print a JSON tx file's wire bytes (TxRaw) as base64."""
    click.echo(base64.b64encode(raw_bytes(read_tx(file))).decode())


@click.command()
@click.argument("encoded")
@click.option("-x", "--hex", "is_hex", is_flag=True, help="ENCODED is hex, not base64")
def decode(encoded, is_hex):
    """Print the JSON of a tx's wire bytes (base64, or hex with --hex)."""
    tx_pb2 = pb("cosmos.tx.v1beta1.tx_pb2")
    try:
        raw = bytes.fromhex(encoded) if is_hex else base64.b64decode(encoded, validate=True)
        tx_raw = tx_pb2.TxRaw.FromString(raw)
        tx = tx_pb2.Tx(body=tx_pb2.TxBody.FromString(tx_raw.body_bytes),
                       auth_info=tx_pb2.AuthInfo.FromString(tx_raw.auth_info_bytes), signatures=tx_raw.signatures)
    except Exception as e:  # noqa: BLE001 (the user's bytes: any decode failure is reported)
        raise click.ClickException(f"cannot decode the tx: {e or type(e).__name__}") from None
    emit_json(click.get_current_context(), tx)


COMMANDS = (sign_command, sign_batch, multisign, multisign_batch, validate_signatures, broadcast_command, encode,
            decode)
