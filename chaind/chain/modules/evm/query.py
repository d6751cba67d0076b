"""ethermint.evm.v1.Query, as Evmos' x/evm querier answers.

EthCall and EstimateGas run through the call runner the node hands in (NodeServices.calls: the JSON-RPC's
CallRunner, chaind/api/calls.py) at the height read.
"""

import re

import orjson

from chaind import errors
from chaind.chain.modules.evm.vm import vm_error
from chaind.chain.queries import Reader, address_bytes, query
from chaind.crypto.addresses import to_bech32
from chaind.errors import ChainError, Kind
from chaind.pb.ethermint.evm.v1 import query_pb2, query_pb2_grpc, tx_pb2

_HEX_ADDRESS = re.compile(r"^(0x|0X)?[0-9a-fA-F]{40}$")
_HEX = re.compile(r"^[0-9a-fA-F]*$")


def _hex_address(text):
    """go-ethereum's IsHexAddress (0x optional), with Evmos' error when it fails."""
    if not _HEX_ADDRESS.match(text):
        raise errors.invalid_argument(f"address '{text}' is not a valid ethereum hex address: invalid address")
    return bytes.fromhex(text[-40:])


def _word(value):
    return "0x" + value.to_bytes(32, "big").hex()


class EvmQuery(Reader, query_pb2_grpc.QueryServicer):
    def __init__(self, app, runner, tracing):
        """runner: NodeServices.calls; tracing: the traces.Tracing TraceTx and TraceBlock run through."""
        super().__init__(app)
        self.genesis = app.genesis
        self.runner = runner
        self.tracing = tracing

    @query(inline=True)
    def Account(self, request, view):
        address = _hex_address(request.address)
        accounts = view.accounts
        return query_pb2.QueryAccountResponse(balance=str(accounts.get_balance(address)),
                                              code_hash="0x" + accounts.get_code_hash(address).hex(),
                                              nonce=accounts.get_nonce(address))

    @query(inline=True)
    def CosmosAccount(self, request, view):
        address = _hex_address(request.address)
        response = query_pb2.QueryCosmosAccountResponse(cosmos_address=to_bech32(self.genesis.bech32_prefix, address))
        found = self.app.keepers["auth"].account(view, address)
        if found is not None:
            response.account_number = found[0]
            response.sequence = self.app.keepers["auth"].sequence(view, address)
        return response

    @query(inline=True)
    def ValidatorAccount(self, request, view):
        prefix = self.genesis.bech32_prefix + "valcons"
        try:
            consensus = address_bytes(request.cons_address, prefix)
        except ValueError as e:
            raise errors.invalid_argument(str(e)) from None
        # Every validator staking knows at this height, created at genesis or since (ValidatorByConsAddr).
        operator = self.app.keepers["staking"].operator_by_cons(view, consensus)
        if operator is None:
            raise errors.failed(f"validator not found for {to_bech32(prefix, consensus)}")
        response = query_pb2.QueryValidatorAccountResponse(
            account_address=to_bech32(self.genesis.bech32_prefix, operator))
        found = self.app.keepers["auth"].account(view, operator)
        if found is not None:
            response.account_number = found[0]
            response.sequence = self.app.keepers["auth"].sequence(view, operator)
        return response

    @query(inline=True)
    def Balance(self, request, view):
        address = _hex_address(request.address)
        return query_pb2.QueryBalanceResponse(balance=str(view.accounts.get_balance(address)))

    @query(inline=True)
    def Storage(self, request, view):
        address = _hex_address(request.address)
        key = request.key[2:] if request.key[:2] in ("0x", "0X") else request.key
        if not _HEX.match(key) or len(key) > 64:
            raise errors.invalid_argument(f"invalid storage key {request.key!r}: want up to 32 bytes of hex")
        slot = int(key or "0", 16)
        return query_pb2.QueryStorageResponse(value=_word(view.accounts.get_storage(address, slot)))

    @query(inline=True)
    def Code(self, request, view):
        address = _hex_address(request.address)
        return query_pb2.QueryCodeResponse(code=view.accounts.get_code(address))

    @query(inline=True)
    def Params(self, request, view):
        return query_pb2.QueryParamsResponse(params=self.app.keepers["evm"].params(view))

    @query(inline=True)
    def BaseFee(self, request, view):
        response = query_pb2.QueryBaseFeeResponse()
        if not self.app.keepers["feemarket"].params(view).no_base_fee:
            response.base_fee = str(self.app.block_at(view.height)[1].base_fee)
        return response

    @query
    def EthCall(self, request, view):
        call = self._call(request)
        try:
            computation, gas_used = self.runner.run(call, view)
        except ChainError as e:
            raise self._error(e, errors.internal) from None
        response = tx_pb2.MsgEthereumTxResponse(ret=computation.output, gas_used=gas_used)
        if computation.is_error:
            response.vm_error = vm_error(computation)
        return response

    @query
    def EstimateGas(self, request, view):
        call = self._call(request)
        try:
            gas = int(self.runner.estimate(call, view, {}), 16)
        except ChainError as e:
            if e.kind == Kind.REVERTED:
                # Evmos answers a revert with its data, not an error.
                return query_pb2.EstimateGasResponse(ret=bytes.fromhex(e.data[2:]), vm_error="execution reverted")
            raise self._error(e, errors.failed) from None
        return query_pb2.EstimateGasResponse(gas=gas)

    @query
    def TraceTx(self, request, view):
        return query_pb2.QueryTraceTxResponse(data=self.tracing.trace_tx(request))

    @query
    def TraceBlock(self, request, view):
        return query_pb2.QueryTraceBlockResponse(data=self.tracing.trace_block(request))

    @staticmethod
    def _call(request):
        """The JSON TransactionArgs of an EthCallRequest, its gas bounded by gas_cap as Evmos' ToMessage does."""
        try:
            call = orjson.loads(request.args)
        except orjson.JSONDecodeError as e:
            raise errors.invalid_argument(str(e)) from None
        if not isinstance(call, dict):
            raise errors.invalid_argument("args must be a JSON object (TransactionArgs)")
        if request.gas_cap:
            gas = call.get("gas")
            try:
                over = gas is None or int(gas, 16) > request.gas_cap
            except (TypeError, ValueError):
                raise errors.invalid_argument(f"invalid gas {gas!r}") from None
            if over:
                call["gas"] = hex(request.gas_cap)
        return call

    @staticmethod
    def _error(error, kind):
        return (errors.invalid_argument if error.kind == Kind.INVALID_ARGUMENT else kind)(error.message)
