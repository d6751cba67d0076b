"""x/evm: EVM txs run by py-evm (deliver), the state they run on, their receipts and events; its params and
MsgUpdateParams; ethermint.evm.v1.Query."""

from chaind.chain.module import Module, QueryService, Store
from chaind.chain.modules.evm import store_layout
from chaind.chain.modules.evm.deliver import deliver
from chaind.chain.modules.evm.genesis import GENESIS
from chaind.chain.modules.evm.keeper import EvmKeeper
from chaind.chain.modules.evm.msgs import AMINO_SHAPES, MESSAGES
from chaind.chain.modules.evm.query import EvmQuery
from chaind.chain.modules.evm.state import NativeState
from chaind.chain.modules.evm.traces import Tracing
from chaind.chain.modules.evm.vm import VM, vm_error
from chaind.pb.ethermint.evm.v1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "VM", "EvmKeeper", "NativeState", "deliver", "vm_error")


def _query(app, settings, node_services):
    return EvmQuery(app, node_services.calls, Tracing(app, node_services.traces))


MODULE = Module(
    name="evm",
    keeper=lambda app: EvmKeeper(),
    messages=MESSAGES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", _query, uses_node_services=True),),
    genesis=GENESIS,
    amino_shapes=AMINO_SHAPES,
    store=Store("evmparams", layout=store_layout.layout),
    cli="chaind.chain.modules.evm.cli",
)
