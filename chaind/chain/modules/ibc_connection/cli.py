"""03-connection's CLI table, ibc-go's `query ibc connection ...`: connections, end, path, params; end and path
prove their answer (--prove, on by default) as ibc-go's CLI does, through chain/ibc_store_proof.py's abci_query reader.
ibc-go v8 has no connection tx commands (a relayer sends the handshake), nor has this table."""

import click

from chaind.chain.cli_table import Queries, Query
from chaind.chain.ibc_store_proof import PROVE_HELP, proven


def _queries(kit):
    from chaind.pb.ibc.core.connection.v1 import connection_pb2, query_pb2

    def _proven(ctx, path):
        return proven(kit, ctx, path, ctx.params["height"])

    def _query(ctx, rpc, **fields):
        return kit.rpc_client(ctx).query(query_pb2, "Query", rpc, at_height=ctx.params.get("height", 0), **fields)

    @click.command("end", help="Query stored connection end")
    @click.argument("connection_id", metavar="[connection-id]")
    @click.option("--prove", type=bool, default=True, show_default=True, help=PROVE_HELP)
    @kit.query_options
    def end(connection_id, prove, **_):
        ctx = click.get_current_context()
        if not prove:
            kit.emit_proto(ctx, _query(ctx, "Connection", connection_id=connection_id))
            return
        value, proof, height = _proven(ctx, f"connections/{connection_id}")
        if not value:
            raise click.ClickException(f"{connection_id}: connection not found")
        kit.emit_proto(ctx, query_pb2.QueryConnectionResponse(
            connection=connection_pb2.ConnectionEnd.FromString(value), proof=proof, proof_height=height))

    @click.command("path", help="Query stored client connection paths")
    @click.argument("client_id", metavar="[client-id]")
    @click.option("--prove", type=bool, default=True, show_default=True, help=PROVE_HELP)
    @kit.query_options
    def path(client_id, prove, **_):
        ctx = click.get_current_context()
        if not prove:
            kit.emit_proto(ctx, _query(ctx, "ClientConnections", client_id=client_id))
            return
        value, proof, height = _proven(ctx, f"clients/{client_id}/connections")
        if not value:
            raise click.ClickException(f"{client_id}: light client connection paths not found")
        kit.emit_proto(ctx, query_pb2.QueryClientConnectionsResponse(
            connection_paths=connection_pb2.ClientPaths.FromString(value).paths, proof=proof, proof_height=height))

    @click.command("params", help="Query the current ibc connection parameters")
    @kit.query_options
    def params(**_):
        ctx = click.get_current_context()
        kit.emit_proto(ctx, _query(ctx, "ConnectionParams").params)

    return [end, path, params]


QUERY = Queries("chaind.pb.ibc.core.connection.v1.query_pb2", "IBC connection query subcommands", (
    Query("connections", "Connections", "Query all connections ends from a chain"),
), path=("ibc", "connection"), path_help=("Querying commands for the IBC module",), custom=_queries)
