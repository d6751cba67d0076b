"""A dev chain with some of everything (sends, a contract with storage and one with storage only, a delegation, a
proposal with a vote, a token pair, a fee grant, a vesting account, an authz grant): the `busy` fixture."""

import pytest
from eth_utils import to_checksum_address

import gov_msgs as g
import staking_msgs as m
from chain_driver import PROPOSER, RECIPIENTS, Chain, contract_address
from chaind.pb.cosmos.authz.v1beta1 import authz_pb2
from chaind.pb.cosmos.authz.v1beta1 import tx_pb2 as authz_tx
from chaind.pb.cosmos.feegrant.v1beta1 import feegrant_pb2
from chaind.pb.cosmos.feegrant.v1beta1 import tx_pb2 as feegrant_tx
from chaind.pb.cosmos.vesting.v1beta1 import tx_pb2 as vesting_tx
from chaind.pb.evmos.erc20.v1 import tx_pb2 as erc20_tx
from contracts import INIT, token_init

S = 10**9
VESTED = bytes([0x5E]) * 20
# A contract's creation code that CREATEs a child whose own creation stores 9 in slot 0 and leaves no code: an
# account with storage only, no auth record and no balance, that the export finds by its recorded preimage.
CHILD_INIT = bytes([0x60, 9, 0x60, 0, 0x55, 0x00])                      # SSTORE(0, 9); STOP
FACTORY_INIT = (bytes([0x7F]) + CHILD_INIT.ljust(32, b"\0") + bytes([0x60, 0, 0x52])     # MSTORE(0, child)
                + bytes([0x60, len(CHILD_INIT), 0x60, 0, 0x60, 0, 0xF0, 0x00]))       # CREATE(0, 0, size); STOP


def run_block(chain, raws, after_s=1):
    chain.clock += after_s * S
    block, puts = chain.app.finalize_block(raws, chain.clock, PROPOSER)
    assert all(r.code == 0 for r in block.results), [r.log for r in block.results]
    chain.app.commit(block, puts)
    return block


def evm_tx(chain, who, **tx):
    nonce = chain.nonces.get(who, chain.app.view().accounts.get_nonce(chain.keys[who].address))
    chain.nonces[who] = nonce + 1
    return chain.evm(who, nonce, **tx)


def native_tx(chain, who, type_url, msg):
    chain.nonces.pop(who, None)
    return chain.native(chain.keys[who], [(type_url, msg)], gas=400000)


@pytest.fixture(scope="module")
def busy(tmp_path_factory):
    """A dev chain after sends, a contract with storage, a delegation, a proposal with a vote, a registered
    token pair and a fee grant: (chain, the contract, the token)."""
    chain = Chain(tmp_path_factory.mktemp("busy"), "db")
    chain.nonces, chain.clock = {}, chain.genesis.genesis_time_ns
    prefix = chain.genesis.bech32_prefix
    k = [key.address for key in chain.keys]
    contract = contract_address(k[1], chain.app.view().accounts.get_nonce(k[1]))
    token = contract_address(k[1], chain.app.view().accounts.get_nonce(k[1]) + 1)
    chain.child = contract_address(contract_address(k[1], chain.app.view().accounts.get_nonce(k[1]) + 2), 1)
    run_block(chain, [evm_tx(chain, 1, data=INIT), evm_tx(chain, 1, data=token_init(10**24), gas=400000),
                 evm_tx(chain, 1, data=FACTORY_INIT),
                 evm_tx(chain, 0, to=RECIPIENTS[0], value=12345), chain.native_send(2, k[3], 10**15)])
    run_block(chain, [evm_tx(chain, 1, to=contract, data=(7).to_bytes(32, "big")),
                 native_tx(chain, 2, *m.delegate(prefix, k[2], k[0], 5 * 10**18)),
                 native_tx(chain, 0, "/evmos.erc20.v1.MsgRegisterERC20", erc20_tx.MsgRegisterERC20(
                     authority=chain.b32(k[0]), erc20addresses=[to_checksum_address(token)]))])
    allowance = feegrant_pb2.BasicAllowance(spend_limit=[m.coin(10**18)])
    grant = feegrant_tx.MsgGrantAllowance(granter=chain.b32(k[4]), grantee=chain.b32(k[5]))
    grant.allowance.Pack(allowance, type_url_prefix="/")
    run_block(chain, [native_tx(chain, 1, g.SUBMIT, g.submit(prefix, k[1], [g.staking_params_msg(prefix)], 20)),
                 native_tx(chain, 4, "/cosmos.feegrant.v1beta1.MsgGrantAllowance", grant)])
    generic = authz_pb2.GenericAuthorization(msg="/cosmos.bank.v1beta1.MsgSend")
    authorization = authz_pb2.Grant()
    authorization.authorization.Pack(generic, type_url_prefix="/")
    run_block(chain, [native_tx(chain, 0, g.VOTE, g.vote(prefix, k[0], 1, g.YES)),
                 native_tx(chain, 6, "/cosmos.vesting.v1beta1.MsgCreateVestingAccount",
                         vesting_tx.MsgCreateVestingAccount(
                             from_address=chain.b32(k[6]), to_address=chain.b32(VESTED), amount=[m.coin(10**18)],
                             end_time=chain.clock // S + 86400)),
                 native_tx(chain, 7, "/cosmos.authz.v1beta1.MsgGrant", authz_tx.MsgGrant(
                     granter=chain.b32(k[7]), grantee=chain.b32(k[8]), grant=authorization))])
    run_block(chain, [])
    yield chain, contract, token
    chain.close()
