"""nft's CLI table: balance, owner, supply, nfts, nft, class, classes; send."""

from chaind.chain.cli_table import Arg, Flag, Msg, Queries, Query, Txs

_CLASS = Arg("class_id")

QUERY = Queries("chaind.pb.cosmos.nft.v1beta1.query_pb2", "NFT classes, NFTs and their owners.", (
    Query("balance", "Balance", "How many NFTs of a class an owner holds.", args=(Arg("owner", "acc"), _CLASS)),
    Query("owner", "Owner", "The owner of an NFT.", args=(_CLASS, Arg("id"))),
    Query("supply", "Supply", "How many NFTs a class has.", args=(_CLASS,)),
    Query("nfts", "NFTs", "NFTs of a class (--class-id) or of an owner (--owner), or both.",
          flags=(Flag("class-id", "Only this class's NFTs"), Flag("owner", "Only this owner's NFTs (bech32)"))),
    Query("nft", "NFT", "One NFT.", args=(_CLASS, Arg("id"))),
    Query("class", "Class", "One NFT class.", args=(_CLASS,)),
    Query("classes", "Classes", "Every NFT class."),
))

TX = Txs("chaind.pb.cosmos.nft.v1beta1.tx_pb2", "Send NFTs.", (
    Msg("send", "MsgSend", "Send the NFT CLASS_ID/ID to RECEIVER.", "sender",
        args=(_CLASS, Arg("id"), Arg("receiver", "acc"))),
))
