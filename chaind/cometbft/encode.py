"""The chain's blocks, txs and results as CometBFT v0.38 writes them in JSON.

int64 as strings, int32 as numbers, bytes base64, hashes upper-case hex, times RFC 3339 with nanoseconds.
"""

import base64

from chaind.chain import valset
from chaind.chain.modules import consensus
from chaind.gocompat import format_time

ZERO_TIME = "0001-01-01T00:00:00Z"


def b64(data):
    return base64.b64encode(data).decode()


def hexu(data):
    return data.hex().upper()


def block_id_of(meta):
    """The BlockID of a committed block (BlockMeta.block_id)."""
    return meta.block_id()


def block_id(bid):
    return {"hash": hexu(bid.hash), "parts": {"total": bid.parts_total, "hash": hexu(bid.parts_hash)}}


def header(h):
    version = {"block": "11"}
    if h.version_app:
        version["app"] = str(h.version_app)
    return {
        "version": version, "chain_id": h.chain_id, "height": str(h.height), "time": format_time(h.time_ns),
        "last_block_id": block_id(h.last_block_id), "last_commit_hash": hexu(h.last_commit_hash),
        "data_hash": hexu(h.data_hash), "validators_hash": hexu(h.validators_hash),
        "next_validators_hash": hexu(h.next_validators_hash), "consensus_hash": hexu(h.consensus_hash),
        "app_hash": hexu(h.app_hash), "last_results_hash": hexu(h.last_results_hash),
        "evidence_hash": hexu(h.evidence_hash), "proposer_address": hexu(h.proposer_address)}


def commit(height, bid, sigs):
    """A Commit: the precommits (chain/votes.py) of block `height`."""
    return {"height": str(height), "round": 0, "block_id": block_id(bid), "signatures": [commit_sig(s) for s in sigs]}


def last_commit(h, sigs):
    """The block's last_commit: its parent's commit, which last_commit_hash hashes."""
    return commit(max(h.height - 1, 0), h.last_block_id, sigs)


def commit_sig(sig):
    if not sig.signature:
        # An absent validator: Go's zero time and a nil signature.
        return {"block_id_flag": sig.block_id_flag, "validator_address": "", "timestamp": ZERO_TIME,
                "signature": None}
    seconds, nanos = sig.timestamp.seconds, sig.timestamp.nanos
    return {"block_id_flag": sig.block_id_flag, "validator_address": hexu(sig.validator_address),
            "timestamp": format_time(seconds * 10**9 + nanos), "signature": b64(sig.signature)}


def block(h, txs, sigs, evidence=()):
    """evidence: the block's evidence already written as JSON (cometbft/evidence_json.py)."""
    return {"header": header(h), "data": {"txs": [b64(t) for t in txs]}, "evidence": {"evidence": list(evidence)},
            "last_commit": last_commit(h, sigs)}


def events(evs):
    return [{"type": e.type, "attributes": [{"key": k, "value": v, "index": bool(i)} for k, v, i in e.attributes]}
            for e in evs]


def validator_updates(updates):
    """FinalizeBlock's validator_updates as jsonpb writes the PublicKey oneof (the `Sum` wrapper); null if none."""
    if not updates:
        return None
    out = []
    for pubkey, power in updates:
        entry = {"pub_key": {"Sum": {"type": "tendermint.crypto.PublicKey_Ed25519", "value": {"ed25519": b64(pubkey)}}}}
        if power:
            entry["power"] = str(power)
        out.append(entry)
    return out


def exec_tx_result(r):
    """ExecTxResult as gogo jsonpb writes it (EmitDefaults): every field present, null for no data."""
    return {"code": r.code, "data": b64(r.data) if r.data else None, "log": r.log, "info": "",
            "gas_wanted": str(r.gas_wanted), "gas_used": str(r.gas_used), "events": events(r.events),
            "codespace": r.codespace}


def exec_tx_result_plain(r):
    """ExecTxResult through libs/json (inside a WebSocket Tx event): omitempty fields drop out."""
    out = {}
    if r.code:
        out["code"] = r.code
    if r.data:
        out["data"] = b64(r.data)
    if r.log:
        out["log"] = r.log
    out["gas_wanted"] = str(r.gas_wanted)
    out["gas_used"] = str(r.gas_used)
    if r.events:
        out["events"] = events(r.events)
    if r.codespace:
        out["codespace"] = r.codespace
    return out


def flat_events(evs):
    """{"type.key": [values]} over every attribute, indexed or not (what subscriptions match)."""
    out = {}
    for e in evs:
        for key, value, _ in e.attributes:
            out.setdefault(f"{e.type}.{key}", []).append(value)
    return out


def result_tx(tx_hash, height, index, raw, result, proof=None):
    out = {"hash": hexu(tx_hash), "height": str(height), "index": index, "tx_result": exec_tx_result(result),
           "tx": b64(raw)}
    if proof is not None:
        out["proof"] = proof
    return out


def validator(address, pubkey, power):
    return {"address": hexu(address), "pub_key": {"type": "tendermint/PubKeyEd25519", "value": b64(pubkey)},
            "voting_power": str(power), "proposer_priority": "0"}


def genesis_doc(genesis):
    """CometBFT's GenesisDoc of a chain, in its member order: the initial validators as GenesisValidators,
    and app_hash always there (hex; empty for an empty initial state), as clients such as cosmjs expect."""
    doc = genesis.document
    out = {"genesis_time": doc["genesis_time"], "chain_id": doc["chain_id"],
           "initial_height": str(doc.get("initial_height", "1")), "consensus_params":
           consensus_params(consensus.of_document(doc)),
           "validators": [{"address": hexu(valset.address_of(v.consensus_pubkey)),
                           "pub_key": {"type": "tendermint/PubKeyEd25519", "value": b64(v.consensus_pubkey)},
                           "power": str(v.power), "name": v.moniker} for v in genesis.validators],
           "app_hash": doc.get("app_hash") or ""}
    if "app_state" in doc:
        out["app_state"] = doc["app_state"]
    return out


def consensus_params(params):
    """tendermint.types.ConsensusParams in CometBFT's JSON (v0.38 adds abci; durations in nanoseconds)."""
    evidence = params.evidence
    return {"block": {"max_bytes": str(params.block.max_bytes), "max_gas": str(params.block.max_gas)},
            "evidence": {"max_age_num_blocks": str(evidence.max_age_num_blocks),
                         "max_age_duration": str(evidence.max_age_duration.seconds * 10**9
                                                 + evidence.max_age_duration.nanos),
                         "max_bytes": str(evidence.max_bytes)},
            "validator": {"pub_key_types": list(params.validator.pub_key_types)},
            "version": {"app": str(params.version.app)},
            "abci": {"vote_extensions_enable_height": str(params.abci.vote_extensions_enable_height)}}
