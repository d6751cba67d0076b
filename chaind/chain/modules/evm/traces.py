"""ethermint.evm.v1 TraceTx and TraceBlock: Evmos' requests, answered by replaying this chain's own blocks.

Evmos' JSON-RPC sends the tx (and the block's EVM txs before it) with the block's context; this node holds
the blocks, so it finds the tx by its hash, checks that what the request says of it is so, and traces it
as debug_traceTransaction does (the same job, the same JSON), through the trace jobs the node hands in
(api/held_traces.py's HeldTraces). The result is JSON bytes.
"""

import orjson
from google.protobuf import any_pb2

from chaind import errors
from chaind.chain import errors as chain_errors
from chaind.chain import txs
from chaind.chain.modules.evm.results import evm_hash_of, evm_results
from chaind.pb.cosmos.tx.v1beta1 import tx_pb2 as cosmos_tx
from chaind.pb.ethermint.evm.v1 import tx_pb2


class Tracing:
    """jobs: the trace jobs the node shares (NodeServices.traces): options(config) parses a debug_trace*
    config, transaction(options, height, index) and block(options, height) run one, its JSON held whole."""

    def __init__(self, app, jobs):
        self.app = app
        self.jobs = jobs

    def trace_tx(self, request):
        options = self._options(request.trace_config if request.HasField("trace_config") else None)
        if not request.HasField("msg"):
            raise errors.invalid_argument("msg is empty: the MsgEthereumTx to trace is required")
        tx_hash = self._evm_hash(request.msg, "msg")
        position = self.app.tx_position(tx_hash, evm=True)
        if position is None:
            raise errors.not_found(f"transaction 0x{tx_hash.hex()} not found: TraceTx traces the transactions "
                                   f"of this chain's blocks")
        height, index = position
        header, meta = self.app.block_at(height)
        self._check_block(request, height, header, meta)
        before = [hash_ for at, hash_ in self._evm_hashes(height, meta) if at < index]
        given = [self._evm_hash(msg, f"predecessors[{i}]") for i, msg in enumerate(request.predecessors)]
        if given != before:
            raise errors.invalid_argument(
                f"predecessors must be the {len(before)} EVM transactions before 0x{tx_hash.hex()} in block "
                f"{height}, in order ({len(given)} given)")
        return self.jobs.transaction(options, height, index)

    def trace_block(self, request):
        options = self._options(request.trace_config if request.HasField("trace_config") else None)
        height = request.block_number
        if height <= 0:
            if not request.block_hash:
                raise errors.invalid_argument("block_number (or block_hash) is required: the block to trace")
            height = self.app.height_of_hash(_hash_bytes(request.block_hash))
            if height is None:
                raise errors.not_found(f"block {request.block_hash} not found")
        found = self.app.block_at(height)
        if found is None:
            raise errors.not_found(f"block {height} not found")
        header, meta = found
        self._check_block(request, height, header, meta)
        stored = [hash_ for _, hash_ in self._evm_hashes(height, meta)]
        given = [self._evm_hash(msg, f"txs[{i}]") for i, msg in enumerate(request.txs)]
        if given != stored:
            raise errors.invalid_argument(f"txs must be the {len(stored)} EVM transactions of block {height}, "
                                          f"in order ({len(given)} given)")
        return self.jobs.block(options, height)

    # -- the request -----------------------------------------------------------------------------

    def _options(self, config):
        """The debug_trace* options of an Evmos TraceConfig."""
        if config is None:
            value = {}
        else:
            if config.limit < 0:
                raise errors.invalid_argument(f"output limit cannot be negative, got {config.limit}")
            if config.debug:
                raise errors.invalid_argument("trace_config.debug (the struct log printed on the node's console) "
                                              "is not supported")
            if config.HasField("overrides"):
                raise errors.invalid_argument("trace_config.overrides is not supported: this node traces with the "
                                              "chain's own config")
            value = {"disableStack": config.disable_stack, "disableStorage": config.disable_storage,
                     "enableMemory": config.enable_memory, "enableReturnData": config.enable_return_data,
                     "limit": config.limit}
            if config.tracer:
                value = {"tracer": config.tracer}
            if config.timeout:
                value["timeout"] = config.timeout
            if config.tracer_json_config:
                try:
                    value["tracerConfig"] = orjson.loads(config.tracer_json_config)
                except orjson.JSONDecodeError as e:
                    raise errors.invalid_argument(f"tracer_json_config: {e}") from None
        return self.jobs.options(value)

    def _evm_hash(self, msg, field):
        """The EVM hash of a MsgEthereumTx, decoded and checked as the chain decodes it."""
        body = cosmos_tx.TxBody(messages=[_any(txs.MSG_ETHEREUM_TX, msg.SerializeToString())],
                                extension_options=[_any(txs.EXTENSION_ETHEREUM_TX,
                                                        tx_pb2.ExtensionOptionsEthereumTx().SerializeToString())])
        raw = cosmos_tx.TxRaw(body_bytes=body.SerializeToString(),
                              auth_info_bytes=cosmos_tx.AuthInfo().SerializeToString()).SerializeToString()
        try:
            return self.app.decode_tx(raw).evm_hash
        except chain_errors.TxError as e:
            raise errors.invalid_argument(f"{field}: {e.log}") from None

    def _check_block(self, request, height, header, meta):
        """What the request says of the block (Evmos' context fields) must be so of the stored block."""
        if request.block_number and request.block_number != height:
            raise errors.invalid_argument(f"block_number {request.block_number}: the transactions are in block "
                                          f"{height}")
        if request.block_hash and _hash_bytes(request.block_hash) != meta.hash:
            raise errors.invalid_argument(f"block_hash {request.block_hash}: block {height} is "
                                          f"{meta.hash.hex().upper()}")
        if request.HasField("block_time"):
            given = request.block_time.seconds * 10**9 + request.block_time.nanos
            if given != header.time_ns:
                raise errors.invalid_argument(f"block_time: block {height} was made at "
                                              f"{header.timestamp().ToJsonString()}")
        if request.proposer_address and request.proposer_address != header.proposer_address:
            raise errors.invalid_argument(f"proposer_address: block {height} was proposed by "
                                          f"{header.proposer_address.hex().upper()}")
        if request.chain_id and request.chain_id != self.app.genesis.evm_chain_id:
            raise errors.invalid_argument(f"chain_id {request.chain_id}: this chain's EVM chain id is "
                                          f"{self.app.genesis.evm_chain_id}")
        if height < self.app.genesis.initial_height:
            raise errors.failed("genesis is not traceable")

    def _evm_hashes(self, height, meta):
        return [(index, evm_hash_of(result)) for index, result in evm_results(self.app, height, meta)]


def _any(url, value):
    return any_pb2.Any(type_url=url, value=value)


def _hash_bytes(text):
    text = text[2:] if text[:2] in ("0x", "0X") else text
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise errors.invalid_argument(f"block_hash {text!r} is not hex") from None
