"""inflation's CLI table: the period, the epoch mint provision, skipped epochs, circulating supply, rate, params."""

from chaind.chain.cli_table import Queries, Query

QUERY = Queries("chaind.pb.evmos.inflation.v1.query_pb2", "Minting along Evmos' exponential schedule.", (
    Query("period", "Period", "The current inflation period."),
    Query("epoch-mint-provision", "EpochMintProvision", "What one epoch mints (as Evmos v20 reports it)."),
    Query("skipped-epochs", "SkippedEpochs", "Epochs that minted nothing while inflation was disabled."),
    Query("circulating-supply", "CirculatingSupply", "The supply of the mint denom."),
    Query("inflation-rate", "InflationRate", "The yearly inflation rate, in percent."),
    Query("params", "Params", "The inflation module's parameters."),
))
