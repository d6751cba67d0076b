"""The IBC CLIs' proven answers, as ibc-go's QueryTendermintProof reads them: a value of the ibc store at an ICS-24
path with its MerkleProof and proof height, through abci_query (02-client's, 03-connection's and 04-channel's tables).
"""

import base64

import click

PROVE_HELP = "show proofs for the query results"


def proven(kit, ctx, path, height):
    """(value, MerkleProof bytes, proof Height) of the ibc store's `path`, as ibc-go's QueryTendermintProof reads
    it: at --height minus one (the state a header of --height commits to), proven by the next block's header."""
    from chaind.pb.cosmos.ics23.v1 import proofs_pb2
    from chaind.pb.ibc.core.client.v1 import client_pb2
    from chaind.pb.ibc.core.commitment.v1 import commitment_pb2

    if height and height <= 2:
        raise click.ClickException("proof queries at height <= 2 are not supported")
    rpc = kit.rpc_client(ctx)
    params = {"path": "store/ibc/key", "data": path.encode().hex(), "prove": True}
    if height:
        params["height"] = str(height - 1)
    answer = rpc.call("abci_query", **params)["response"]
    if int(answer.get("code", 0)):
        raise click.ClickException(answer.get("log", ""))
    ops = (answer.get("proofOps") or {}).get("ops") or []
    proof = commitment_pb2.MerkleProof(proofs=[proofs_pb2.CommitmentProof.FromString(base64.b64decode(op["data"]))
                                               for op in ops])
    chain_id = rpc.call("status")["node_info"]["network"]
    tail = chain_id.rsplit("-", 1)[-1] if "-" in chain_id else ""
    revision = int(tail) if tail.isdigit() and not tail.startswith("0") else 0
    value = base64.b64decode(answer.get("value") or "")
    return value, proof.SerializeToString(), client_pb2.Height(revision_number=revision,
                                                               revision_height=int(answer["height"]) + 1)
