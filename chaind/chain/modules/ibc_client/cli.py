"""02-client's CLI table, ibc-go's `query ibc client ...`: states, state, status, consensus-states,
consensus-state-heights, consensus-state, params; state and consensus-state prove their answer (--prove, on by
default) as ibc-go's CLI does: the ibc store's key read with abci_query, its proof as a MerkleProof, proof_height
the next block's. And `tx ibc client create|update|misbehaviour` with the states or client message as JSON (an
Any's: {"@type": ...}), given inline or as a file's path."""

import json

import click

from chaind.chain.cli_table import Arg, Queries, Query, Txs
from chaind.chain.ibc_store_proof import PROVE_HELP, proven

_CLIENT = Arg("client_id", name="client-id")


def _queries(kit):
    from google.protobuf import any_pb2

    from chaind.pb.ibc.core.client.v1 import query_pb2
    from chaind.pb.ibc.lightclients.tendermint.v1 import tendermint_pb2

    def _query(ctx, rpc, **fields):
        return kit.rpc_client(ctx).query(query_pb2, "Query", rpc, at_height=ctx.params.get("height", 0), **fields)

    @click.command("state", help="Query a client state. Query stored client state")
    @click.argument("client_id", metavar="CLIENT-ID")
    @click.option("--prove", type=bool, default=True, show_default=True, help=PROVE_HELP)
    @kit.query_options
    def state(client_id, prove, **_):
        ctx = click.get_current_context()
        if not prove:
            kit.emit_proto(ctx, _query(ctx, "ClientState", client_id=client_id))
            return
        value, proof, height = proven(kit, ctx, f"clients/{client_id}/clientState", ctx.params["height"])
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
    @click.option("--prove", type=bool, default=True, show_default=True, help=PROVE_HELP)
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
        value, proof, height = proven(kit, ctx, f"clients/{client_id}/consensusStates/{revision}-{number}",
                                       ctx.params["height"])
        if not value:
            raise click.ClickException(f"{client_id}: consensus state not found")
        kit.emit_proto(ctx, query_pb2.QueryConsensusStateResponse(consensus_state=any_pb2.Any.FromString(value),
                                                                  proof=proof, proof_height=height))

    return [state, consensus_state]


def _json_or_file(kit, text, what):
    """An Any from JSON given inline, else read from the file `text` names (ibc-go's CLI takes either)."""
    try:
        value = json.loads(text)
    except ValueError:
        try:
            with open(text) as f:
                value = json.load(f)
        except OSError as error:
            raise click.ClickException(f"neither JSON input nor path to .json file for {what} were provided: "
                                       f"{error.strerror}: {text}") from None
        except ValueError as error:
            raise click.ClickException(f"error unmarshalling {what} file: {error}") from None
    return kit.any_from_json(value)


def _txs(kit):
    from chaind.pb.ibc.core.client.v1 import tx_pb2
    from chaind.pb.ibc.lightclients.tendermint.v1 import tendermint_pb2  # noqa: F401 (its types, for the JSON)

    def signer(ctx, from_):
        return kit.to_bech32(kit.prefix(ctx, "acc"), kit.sender_address(ctx, from_))

    @click.command("create", help="create new IBC client. create a new IBC client with the specified client state "
                   "and consensus state")
    @click.argument("client_state", metavar="[path/to/client_state.json]")
    @click.argument("consensus_state", metavar="[path/to/consensus_state.json]")
    @click.option("--from", "from_", required=True, help="Signing key (name or address)")
    @kit.tx_options
    def create(client_state, consensus_state, from_, **_):
        ctx = click.get_current_context()
        msg = tx_pb2.MsgCreateClient(client_state=_json_or_file(kit, client_state, "client state"),
                                     consensus_state=_json_or_file(kit, consensus_state, "consensus state"),
                                     signer=signer(ctx, from_))
        kit.generate_or_broadcast(ctx, from_, [("/ibc.core.client.v1.MsgCreateClient", msg)])

    @click.command("update", help="update existing client with a client message, for example a header, "
                   "misbehaviour or batch update")
    @click.argument("client_id", metavar="[client-id]")
    @click.argument("client_message", metavar="[path/to/client_msg.json]")
    @click.option("--from", "from_", required=True, help="Signing key (name or address)")
    @kit.tx_options
    def update(client_id, client_message, from_, **_):
        ctx = click.get_current_context()
        msg = tx_pb2.MsgUpdateClient(client_id=client_id, client_message=_json_or_file(kit, client_message, "header"),
                                     signer=signer(ctx, from_))
        kit.generate_or_broadcast(ctx, from_, [("/ibc.core.client.v1.MsgUpdateClient", msg)])

    @click.command("misbehaviour", help="submit a client misbehaviour to prevent future updates")
    @click.argument("client_id", metavar="[clientID]")
    @click.argument("misbehaviour", metavar="[path/to/misbehaviour.json]")
    @click.option("--from", "from_", required=True, help="Signing key (name or address)")
    @kit.tx_options
    def misbehaviour(client_id, misbehaviour, from_, **_):
        ctx = click.get_current_context()
        msg = tx_pb2.MsgSubmitMisbehaviour(client_id=client_id,
                                           misbehaviour=_json_or_file(kit, misbehaviour, "misbehaviour"),
                                           signer=signer(ctx, from_))
        kit.generate_or_broadcast(ctx, from_, [("/ibc.core.client.v1.MsgSubmitMisbehaviour", msg)])

    return [create, update, misbehaviour]


QUERY = Queries("chaind.pb.ibc.core.client.v1.query_pb2", "IBC client query subcommands", (
    Query("states", "ClientStates", "Query all available light clients."),
    Query("status", "ClientStatus", "Query client status. Any client without an 'Active' status is considered "
          "inactive.", args=(_CLIENT,)),
    Query("consensus-states", "ConsensusStates", "Query all the consensus states of a client.", args=(_CLIENT,)),
    Query("consensus-state-heights", "ConsensusStateHeights",
          "Query the heights of all consensus states of a client.", args=(_CLIENT,)),
    Query("params", "ClientParams", "Query the current ibc client parameters."),
), path=("ibc", "client"), path_help=("Querying commands for the IBC module",), custom=_queries)

TX = Txs("chaind.pb.ibc.core.client.v1.tx_pb2", "IBC client transaction subcommands", custom=_txs,
         signers={"MsgCreateClient": "signer", "MsgUpdateClient": "signer", "MsgSubmitMisbehaviour": "signer"},
         path=("ibc", "client"), path_help=("IBC transaction subcommands",))
