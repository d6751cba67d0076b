"""02-client's CLI table, ibc-go's `query ibc client ...`: states, state, status, consensus-states,
consensus-state-heights, consensus-state, params; state and consensus-state prove their answer (--prove, on by
default) as ibc-go's CLI does: the ibc store's key read with abci_query, its proof as a MerkleProof, proof_height
the next block's."""

import base64

import click

from chaind.chain.cli_table import Arg, Queries, Query

_CLIENT = Arg("client_id", name="client-id")
_PROVE = "show proofs for the query results"


def _proven(kit, ctx, path, height):
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


def _queries(kit):
    from google.protobuf import any_pb2

    from chaind.pb.ibc.core.client.v1 import query_pb2
    from chaind.pb.ibc.lightclients.tendermint.v1 import tendermint_pb2

    def _query(ctx, rpc, **fields):
        return kit.rpc_client(ctx).query(query_pb2, "Query", rpc, at_height=ctx.params.get("height", 0), **fields)

    @click.command("state", help="Query a client state. Query stored client state")
    @click.argument("client_id", metavar="CLIENT-ID")
    @click.option("--prove", type=bool, default=True, show_default=True, help=_PROVE)
    @kit.query_options
    def state(client_id, prove, **_):
        ctx = click.get_current_context()
        if not prove:
            kit.emit_proto(ctx, _query(ctx, "ClientState", client_id=client_id))
            return
        value, proof, height = _proven(kit, ctx, f"clients/{client_id}/clientState", ctx.params["height"])
        if not value:
            raise click.ClickException(f"{client_id}: light client not found")
        kit.emit_proto(ctx, query_pb2.QueryClientStateResponse(client_state=any_pb2.Any.FromString(value),
                                                               proof=proof, proof_height=height))

    @click.command("consensus-state", help="Query the consensus state of a client at a given height. Query the "
                   "consensus state for a particular light client at a given height. If the '--latest-height' flag "
                   "is included, the query returns the latest consensus state, overriding the height argument.")
    @click.argument("client_id", metavar="CLIENT-ID")
    @click.argument("consensus_height", metavar="[HEIGHT]", required=False)
    @click.option("--latest-height", is_flag=True, help="return latest stored consensus state")
    @click.option("--prove", type=bool, default=True, show_default=True, help=_PROVE)
    @kit.query_options
    def consensus_state(client_id, consensus_height, latest_height, prove, **_):
        ctx = click.get_current_context()
        if latest_height:
            found = _query(ctx, "ClientState", client_id=client_id).client_state
            latest = tendermint_pb2.ClientState.FromString(found.value).latest_height
            revision, number = latest.revision_number, latest.revision_height
        else:
            if consensus_height is None:
                raise click.UsageError("must include a second 'height' argument when '--latest-height' flag is not "
                                       "provided")
            parts = consensus_height.split("-")
            if len(parts) != 2 or not all(p.isdigit() for p in parts):
                raise click.BadParameter(f"expected height string format: {{revision}}-{{height}}. Got: "
                                         f"{consensus_height}", param_hint="HEIGHT")
            revision, number = int(parts[0]), int(parts[1])
        if not prove:
            kit.emit_proto(ctx, _query(ctx, "ConsensusState", client_id=client_id, revision_number=revision,
                                       revision_height=number))
            return
        value, proof, height = _proven(kit, ctx, f"clients/{client_id}/consensusStates/{revision}-{number}",
                                       ctx.params["height"])
        if not value:
            raise click.ClickException(f"{client_id}: consensus state not found")
        kit.emit_proto(ctx, query_pb2.QueryConsensusStateResponse(consensus_state=any_pb2.Any.FromString(value),
                                                                  proof=proof, proof_height=height))

    return [state, consensus_state]


QUERY = Queries("chaind.pb.ibc.core.client.v1.query_pb2", "IBC client query subcommands", (
    Query("states", "ClientStates", "Query all available light clients."),
    Query("status", "ClientStatus", "Query client status. Any client without an 'Active' status is considered "
          "inactive.", args=(_CLIENT,)),
    Query("consensus-states", "ConsensusStates", "Query all the consensus states of a client.", args=(_CLIENT,)),
    Query("consensus-state-heights", "ConsensusStateHeights",
          "Query the heights of all consensus states of a client.", args=(_CLIENT,)),
    Query("params", "ClientParams", "Query the current ibc client parameters."),
), path=("ibc", "client"), path_help=("Querying commands for the IBC module",), custom=_queries)
