"""x/evm: EVM txs run by py-evm (deliver), the state they run on, their receipts and events;
ethermint.evm.v1.Query."""

from chaind.chain.module import Module, QueryService
from chaind.chain.modules.evm.deliver import deliver
from chaind.chain.modules.evm.genesis import init_genesis
from chaind.chain.modules.evm.query import EvmQuery
from chaind.chain.modules.evm.state import NativeState
from chaind.chain.modules.evm.vm import VM, vm_error
from chaind.pb.ethermint.evm.v1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "VM", "NativeState", "deliver", "vm_error")


def _query(app, settings):
    rpc = settings.json_rpc
    return EvmQuery(app, rpc.gas_cap, rpc.evm_timeout)


MODULE = Module(
    name="evm",
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", _query),),
    init_genesis=init_genesis,
    cli="chaind.chain.modules.evm.cli",
)
