"""auth's params: app_state.auth.params of genesis over the SDK's (and Evmos') defaults; the ante reads them
(memo length, signature count, gas per tx byte) and the app charges the signature gas below."""

from google.protobuf import json_format

from chaind.pb.cosmos.auth.v1beta1 import auth_pb2

# Gas the SDK charges for verifying a signature (the KV store's gas config and Evmos' eth_secp256k1 cost).
SIG_VERIFY_COST_ETH_SECP256K1 = 21000
SIG_VERIFY_COST_SECP256K1 = 1000

DEFAULTS = {"max_memo_characters": "256", "tx_sig_limit": "7", "tx_size_cost_per_byte": "10",
            "sig_verify_cost_ed25519": "590", "sig_verify_cost_secp256k1": str(SIG_VERIFY_COST_ETH_SECP256K1)}
PARAMS = json_format.ParseDict(DEFAULTS, auth_pb2.Params())


def parse_params(section):
    """cosmos.auth.v1beta1.Params of genesis' app_state.auth.params (JSON, missing fields default); ValueError
    for a value the SDK's Params.Validate refuses (every one must be positive)."""
    try:
        params = json_format.ParseDict({**DEFAULTS, **(section or {})}, auth_pb2.Params())
    except json_format.ParseError as e:
        raise ValueError(str(e)) from None
    for field in DEFAULTS:
        if getattr(params, field) == 0:
            raise ValueError(f"invalid {field}: 0")
    return params
