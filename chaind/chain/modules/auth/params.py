"""auth's params: the SDK's (and Evmos') defaults; the app charges the two gas costs of a native tx."""

from chaind.pb.cosmos.auth.v1beta1 import auth_pb2

# Gas the SDK charges native txs (auth params and the KV store's gas config).
TX_SIZE_COST_PER_BYTE = 10
SIG_VERIFY_COST_ETH_SECP256K1 = 21000
SIG_VERIFY_COST_SECP256K1 = 1000

PARAMS = auth_pb2.Params(max_memo_characters=256, tx_sig_limit=7, tx_size_cost_per_byte=TX_SIZE_COST_PER_BYTE,
                         sig_verify_cost_ed25519=590, sig_verify_cost_secp256k1=SIG_VERIFY_COST_ETH_SECP256K1)
