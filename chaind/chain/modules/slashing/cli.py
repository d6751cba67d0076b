"""slashing's CLI table: signing-info, signing-infos, params; unjail."""

from chaind.chain.cli_table import Arg, Msg, Queries, Query, Txs

QUERY = Queries("chaind.pb.cosmos.slashing.v1beta1.query_pb2",
                "Validators' signing infos and the slashing parameters.", (
    Query("signing-info", "SigningInfo", "A validator's signing info, by its consensus public key (JSON, as "
          "`comet show-validator` prints it) or consensus address (valcons bech32 or 0x).",
          args=(Arg("cons_address", "cons", "validator-conspub/address"),)),
    Query("signing-infos", "SigningInfos", "Every validator's signing info."),
    Query("params", "Params", "The slashing module's parameters."),
))

TX = Txs("chaind.pb.cosmos.slashing.v1beta1.tx_pb2", "Unjail a validator.", (
    Msg("unjail", "MsgUnjail", "Unjail the validator --from operates, once its jail time has passed.",
        "validator_addr", signer_kind="val"),
), signers={"MsgUnjail": "validator_addr"})
