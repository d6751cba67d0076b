"""The ICS20 precompile at 0x...0802 between two chaind chains without a node: its denom queries (Evmos v20's and
cosmos/evm's), a voucher sent home from the EVM, a Solidity contract (tests/solidity/ICS20Caller.sol) transferring
for its caller within the TransferAuthorization the caller approved and refused beyond it, and the allowance's
increase, decrease and revocation."""

import json
import pathlib

import pytest
from eth_abi import decode
from eth_utils import keccak

from chain_driver import contract_address
from chaind.chain.modules.transfer import ibc_denom, parse_trace
from chaind.crypto.addresses import checksum_address
from ibc_channel_msgs import connected_pair, ok
from ibc_evm import calldata, eth_call, evm_block
from ibc_transfer_msgs import FAR, address, b32, open_transfer_channel, relay, signed_block, transfer

ICS20 = (0x802).to_bytes(20, "big")
ICS20_HEX = checksum_address(ICS20)
STAKE_ON_B = ibc_denom(parse_trace("transfer/channel-0/stake"))
HASH = STAKE_ON_B[4:]
CALLER = json.loads((pathlib.Path(__file__).parent / "solidity" / "ICS20Caller.json").read_text())
TRANSFER = "transfer(string,string,string,uint256,address,string,(uint64,uint64),uint64,string)"
ALLOCATIONS = "(string,string,(string,uint256)[],string[],string[])[]"
SUCCESS = b'{"result":"AQ=="}'


@pytest.fixture
def pair(tmp_path):
    made = connected_pair(tmp_path)
    open_transfer_channel(made)
    sent = ok(signed_block(made, made.a, [transfer(made.a, "stake", 1000, b32(made.b))]))
    [(_, ack, _)] = relay(made, made.a, made.b, sent)
    assert ack == SUCCESS
    yield made
    made.close()


def bank(chain, owner, denom):
    return chain.app.keepers["bank"].balance(chain.app.view(), owner, denom)


def reason(result):
    """The revert reason of a failed EVM tx (Error(string), directly or passed up by the contract)."""
    assert result.code == 0 and result.receipt.status == 0
    return decode(["string"], result.receipt.return_data[4:])[0]


def allowance(chain, grantee, granter):
    out = eth_call(chain, ICS20, calldata("allowance(address,address)", grantee, granter))
    return decode([ALLOCATIONS], out)[0]


def test_denom_queries_answer_as_evmos_and_cosmos_evm(pair):
    b = pair.b
    trace = decode(["(string,string)"], eth_call(b, ICS20, calldata("denomTrace(string)", HASH)))[0]
    assert trace == ("transfer/channel-0", "stake")
    assert decode(["(string,string)"], eth_call(b, ICS20, calldata("denomTrace(string)", "AB" * 32)))[0] == ("", "")
    assert decode(["string"], eth_call(b, ICS20, calldata("denomHash(string)", "transfer/channel-0/stake")))[0] == HASH
    assert decode(["string"], eth_call(b, ICS20, calldata("denomHash(string)", "transfer/channel-9/x")))[0] == ""
    traces, page = decode(["(string,string)[]", "(bytes,uint64)"], eth_call(
        b, ICS20, calldata("denomTraces((bytes,uint64,uint64,bool,bool))", (b"", 0, 10, True, False))))
    assert ("transfer/channel-0", "stake") in traces and page[1] == len(traces)
    denom = decode(["(string,(string,string)[])"], eth_call(b, ICS20, calldata("denom(string)", STAKE_ON_B)))[0]
    assert denom == ("stake", (("transfer", "channel-0"),))
    denoms, _ = decode(["(string,(string,string)[])[]", "(bytes,uint64)"], eth_call(
        b, ICS20, calldata("denoms((bytes,uint64,uint64,bool,bool))", (b"", 0, 10, False, False))))
    assert ("stake", (("transfer", "channel-0"),)) in denoms


def test_a_voucher_goes_home_from_the_evm(pair):
    a, b = pair.a, pair.b
    user = address(b)
    start = bank(a, address(a), "stake")
    sent = evm_block(pair, b, 2, calldata(TRANSFER, "transfer", "channel-0", STAKE_ON_B, 300, user, b32(a), (0, 0),
                                          FAR, "home"), ICS20_HEX)
    assert sent.receipt.status == 1, sent.receipt.vm_error
    [log] = [found for found in sent.receipt.logs if found.address == ICS20]
    topic = keccak(b"IBCTransfer(address,string,string,string,string,uint256,string)")
    assert [bytes(t) if isinstance(t, bytes) else t.to_bytes(32, "big") for t in log.topics] == [
        topic, user.rjust(32, b"\0"), keccak(b32(a).encode())]
    assert decode(["string", "string", "string", "uint256", "string"], log.data) == (
        "transfer", "channel-0", STAKE_ON_B, 300, "home")
    [(_, ack, _)] = relay(pair, b, a, sent)
    assert ack == SUCCESS
    assert bank(a, address(a), "stake") == start + 300
    assert bank(b, user, STAKE_ON_B) == 700


def test_a_contract_transfers_for_its_caller_within_the_allowance(pair):
    a, b = pair.a, pair.b
    user = address(b)
    nonce = b.app.view().accounts.get_nonce(user)
    made = evm_block(pair, b, 2, bytes.fromhex(CALLER["bytecode"]), gas=1_000_000)
    assert made.receipt.status == 1, made.receipt.vm_error
    contract = contract_address(user, nonce)
    send = calldata("transferForCaller(string,string,uint256,string)", "channel-0", STAKE_ON_B, 60, b32(a))

    refused = evm_block(pair, b, 2, send, checksum_address(contract))
    assert reason(refused) == (f"authorization to {checksum_address(contract)} for address {checksum_address(user)} "
                               "does not exist or is expired")
    assert bank(b, user, STAKE_ON_B) == 1000

    approved = evm_block(pair, b, 2, calldata(f"approve(address,{ALLOCATIONS})", contract,
                                              [("transfer", "channel-0", [(STAKE_ON_B, 100)], [], [])]), ICS20_HEX)
    assert approved.receipt.status == 1, approved.receipt.vm_error
    assert allowance(b, contract, user) == (("transfer", "channel-0", ((STAKE_ON_B, 100),), (), ()),)

    sent = evm_block(pair, b, 2, send, checksum_address(contract))
    assert sent.receipt.status == 1, sent.receipt.vm_error
    assert bank(b, user, STAKE_ON_B) == 940
    assert allowance(b, contract, user) == (("transfer", "channel-0", ((STAKE_ON_B, 40),), (), ()),)
    start = bank(a, address(a), "stake")
    [(_, ack, _)] = relay(pair, b, a, sent)
    assert ack == SUCCESS and bank(a, address(a), "stake") == start + 60

    beyond = evm_block(pair, b, 2, send, checksum_address(contract))
    assert reason(beyond) == "requested amount is more than spend limit: insufficient funds"
    assert bank(b, user, STAKE_ON_B) == 940
    assert allowance(b, contract, user) == (("transfer", "channel-0", ((STAKE_ON_B, 40),), (), ()),)

    more = evm_block(pair, b, 2, calldata("increaseAllowance(address,string,string,string,uint256)", contract,
                                          "transfer", "channel-0", STAKE_ON_B, 30), ICS20_HEX)
    assert more.receipt.status == 1, more.receipt.vm_error
    assert allowance(b, contract, user)[0][2] == ((STAKE_ON_B, 70),)
    less = evm_block(pair, b, 2, calldata("decreaseAllowance(address,string,string,string,uint256)", contract,
                                          "transfer", "channel-0", STAKE_ON_B, 10), ICS20_HEX)
    assert less.receipt.status == 1, less.receipt.vm_error
    assert allowance(b, contract, user)[0][2] == ((STAKE_ON_B, 60),)
    spent = evm_block(pair, b, 2, calldata("transferForCaller(string,string,uint256,string)", "channel-0",
                                           STAKE_ON_B, 60, b32(a)), checksum_address(contract))
    assert spent.receipt.status == 1, spent.receipt.vm_error
    assert allowance(b, contract, user) == ()
    # The last transfer spent the allowance whole: the grant is gone, and a revoke finds nothing.
    revoked = evm_block(pair, b, 2, calldata("revoke(address)", contract), ICS20_HEX)
    assert reason(revoked) == (f"authorization to {checksum_address(contract)} for address "
                               f"{checksum_address(user)} does not exist or is expired")
    again = evm_block(pair, b, 2, calldata(f"approve(address,{ALLOCATIONS})", contract,
                                           [("transfer", "channel-0", [(STAKE_ON_B, 5)], [], [])]), ICS20_HEX)
    assert again.receipt.status == 1 and allowance(b, contract, user)[0][2] == ((STAKE_ON_B, 5),)
    revoked = evm_block(pair, b, 2, calldata("revoke(address)", contract), ICS20_HEX)
    assert revoked.receipt.status == 1 and allowance(b, contract, user) == ()
