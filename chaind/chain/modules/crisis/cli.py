"""crisis's CLI table: invariant-broken."""

from chaind.chain.cli_table import Arg, Msg, Txs

TX = Txs("chaind.pb.cosmos.crisis.v1beta1.tx_pb2", "Report a broken invariant (the chain checks it; pays the "
         "constant fee).", (
    Msg("invariant-broken", "MsgVerifyInvariant", "Submit proof that MODULE's invariant ROUTE is broken.", "sender",
        args=(Arg("invariant_module_name", name="module_name"), Arg("invariant_route", name="invariant_route"))),
))
