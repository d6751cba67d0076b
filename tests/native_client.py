"""Native txs against a running node from a test: dev accounts' sends signed at their state nonce, broadcast over
gRPC and read back once committed; balances and queries over gRPC."""

import grpc

from chaind.chain import txs
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_q
from chaind.pb.cosmos.bank.v1beta1 import query_pb2_grpc as bank_grpc
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from helpers import on_reactor, until_tx
from native_txs import build_native

IBC = "ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2"
GAS = 200000


def signed_send(node, who, to, amount, nonce_offset=0):
    key, view = node.dev_keys[who], node.app.view()
    number, _ = node.app.keepers["auth"].account(view, key.address)
    prefix = node.genesis.bech32_prefix
    msg = bank_tx.MsgSend(from_address=to_bech32(prefix, key.address), to_address=to_bech32(prefix, to),
                          amount=[coin_pb2.Coin(denom=node.genesis.base_denom, amount=str(amount))])
    gas = 200000
    return build_native([(txs.MSG_SEND, msg)], key, node.genesis.chain_id, number,
                        view.accounts.get_nonce(key.address) + nonce_offset,
                        [(node.genesis.base_denom, 2 * node.app.next_base_fee() * gas)], gas)


def grpc_call(node, method, request):
    with grpc.insecure_channel(f"127.0.0.1:{node.port_of('grpc')}") as channel:
        return getattr(tx_grpc.ServiceStub(channel), method)(request, timeout=10)


def fund(node, address, coins):
    """Dev account 1 sends `coins` to `address` in a native tx (eth_secp256k1), through the node's gRPC."""
    key, view, g = node.dev_keys[1], node.app.view(), node.genesis
    number, _ = node.app.keepers["auth"].account(view, key.address)
    msg = bank_tx.MsgSend(from_address=to_bech32(g.bech32_prefix, key.address),
                          to_address=to_bech32(g.bech32_prefix, address),
                          amount=[coin_pb2.Coin(denom=d, amount=str(a)) for d, a in sorted(coins)])
    raw = build_native([(txs.MSG_SEND, msg)], key, g.chain_id, number, view.accounts.get_nonce(key.address),
                       [(g.base_denom, 2 * node.app.next_base_fee() * GAS)], GAS)
    reply = stub_call(node, tx_grpc.ServiceStub, "BroadcastTx",
                      tx_service.BroadcastTxRequest(tx_bytes=raw, mode=tx_service.BROADCAST_MODE_SYNC))
    assert reply.tx_response.code == 0, reply.tx_response.raw_log
    on_reactor(until_tx, node, reply.tx_response.txhash)
    found = stub_call(node, tx_grpc.ServiceStub, "GetTx", tx_service.GetTxRequest(hash=reply.tx_response.txhash))
    assert found.tx_response.code == 0, found.tx_response.raw_log


def node_balances(node, bech32):
    reply = stub_call(node, bank_grpc.QueryStub, "AllBalances", bank_q.QueryAllBalancesRequest(address=bech32))
    return {c.denom: c.amount for c in reply.balances}


def grpc_query(node, stub, method, request, height=None):
    """(response, None) or (None, (status code, details)), over a fresh channel."""
    with grpc.insecure_channel(f"127.0.0.1:{node.port_of('grpc')}") as channel:
        metadata = (("x-cosmos-block-height", str(height)),) if height is not None else None
        try:
            return getattr(stub(channel), method)(request, metadata=metadata, timeout=10), None
        except grpc.RpcError as e:
            return None, (e.code(), e.details())


def broadcast(node, who, type_url, msg, gas=300000):
    """Sign `msg` as dev account `who`, broadcast it over gRPC and wait for its TxResponse."""
    key, view = node.dev_keys[who], node.app.view()
    number, _ = node.app.keepers["auth"].account(view, key.address)
    raw = build_native([(type_url, msg)], key, node.genesis.chain_id, number, view.accounts.get_nonce(key.address),
                       [(node.genesis.base_denom, 2 * node.app.next_base_fee() * gas)], gas)
    with grpc.insecure_channel(f"127.0.0.1:{node.port_of('grpc')}") as channel:
        stub = tx_grpc.ServiceStub(channel)
        reply = stub.BroadcastTx(tx_service.BroadcastTxRequest(tx_bytes=raw, mode=tx_service.BROADCAST_MODE_SYNC),
                                 timeout=10)
        assert reply.tx_response.code == 0, reply.tx_response.raw_log
        on_reactor(until_tx, node, reply.tx_response.txhash)
        return stub.GetTx(tx_service.GetTxRequest(hash=reply.tx_response.txhash), timeout=10).tx_response


def stub_call(node, stub, method, request):
    with grpc.insecure_channel(f"127.0.0.1:{node.port_of('grpc')}") as channel:
        return getattr(stub(channel), method)(request, timeout=10)
