"""The EVM coin's WERC20 on a running dev node, through web3.py: at cosmos/evm's address, deposit() / receive /
fallback keep the coin where it is and log Deposit, withdraw(wad) logs Withdrawal or reverts with cosmos/evm's text,
and the ERC-20 views read the bank balance of the EVM coin itself; every revert of an ERC-20 precompile carries an
Error(string) worded as cosmos/evm's."""

import pytest_twisted
from eth_abi import decode, encode
from eth_utils import keccak
from web3.exceptions import ContractLogicError

from evm_client import DEV0, OTHER, send, w3
from helpers import in_thread

WERC20 = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE"
ETHER = 10**18


def _function(name, inputs=(), outputs=(), mutability="nonpayable"):
    return {"type": "function", "name": name, "stateMutability": mutability,
            "inputs": [{"name": f"a{i}", "type": t} for i, t in enumerate(inputs)],
            "outputs": [{"name": "", "type": t} for t in outputs]}


def _event(name, *inputs):
    return {"type": "event", "name": name, "anonymous": False,
            "inputs": [{"name": n, "type": t, "indexed": i} for n, t, i in inputs]}


# cosmos/evm's precompiles/werc20/abi.json, as IWERC20.sol declares it.
IWERC20 = [
    _function("deposit", mutability="payable"),
    _function("withdraw", ("uint256",)),
    _function("name", outputs=("string",), mutability="view"),
    _function("symbol", outputs=("string",), mutability="view"),
    _function("decimals", outputs=("uint8",), mutability="view"),
    _function("totalSupply", outputs=("uint256",), mutability="view"),
    _function("balanceOf", ("address",), ("uint256",), "view"),
    _function("transfer", ("address", "uint256"), ("bool",)),
    _event("Deposit", ("dst", "address", True), ("wad", "uint256", False)),
    _event("Withdrawal", ("src", "address", True), ("wad", "uint256", False)),
    {"type": "fallback", "stateMutability": "payable"},
    {"type": "receive", "stateMutability": "payable"},
]


def _nonce(web3):
    return web3.eth.get_transaction_count(DEV0)


def _spent(web3, receipt):
    return receipt.gasUsed * receipt.effectiveGasPrice


def _deposits(node):
    web3 = w3(node)
    werc20 = web3.eth.contract(address=WERC20, abi=IWERC20)
    cases = [
        ("deposit()", werc20.functions.deposit().build_transaction({"gas": 100000, "nonce": 0})["data"], ETHER),
        ("receive", "0x", ETHER // 2),
        ("zero deposit", werc20.functions.deposit().build_transaction({"gas": 100000, "nonce": 0})["data"], 0),
        ("fallback (a selector IWERC20 lacks)", "0x" + keccak(b"increaseAllowance(address,uint256)")[:4].hex()
         + "00" * 64, 7),
    ]
    for what, data, value in cases:
        before = web3.eth.get_balance(DEV0), web3.eth.get_balance(WERC20)
        receipt = send(web3, {"to": WERC20, "data": data, "value": value, "nonce": _nonce(web3), "gas": 100000})
        assert receipt.status == 1, what
        # Nothing is wrapped: the value went to the precompile and straight back.
        assert web3.eth.get_balance(DEV0) == before[0] - _spent(web3, receipt), what
        assert web3.eth.get_balance(WERC20) == before[1], what
        [log] = werc20.events.Deposit().process_receipt(receipt)
        assert (log["address"], log["args"]["dst"], log["args"]["wad"]) == (WERC20, DEV0, value), what
    # The ERC-20 views are the EVM coin's bank balance and metadata.
    assert werc20.functions.balanceOf(DEV0).call() == web3.eth.get_balance(DEV0)
    assert werc20.functions.balanceOf(OTHER).call() == web3.eth.get_balance(OTHER)
    assert (werc20.functions.name().call(), werc20.functions.symbol().call(),
            werc20.functions.decimals().call()) == ("Chain", "CHAIN", 18)
    assert werc20.functions.totalSupply().call() == node.app.keepers["bank"].supply(node.app.view(), "achain") > 0
    # transfer moves the coin itself.
    before = web3.eth.get_balance(OTHER)
    data = werc20.functions.transfer(OTHER, 12345).build_transaction({"gas": 100000, "nonce": 0})["data"]
    assert send(web3, {"to": WERC20, "data": data, "nonce": _nonce(web3), "gas": 100000}).status == 1
    assert web3.eth.get_balance(OTHER) == before + 12345


@pytest_twisted.inlineCallbacks
def test_deposit_receive_and_fallback_keep_the_coin_and_log_deposit(node):
    yield in_thread(_deposits, node)


def _withdrawals(node):
    web3 = w3(node)
    werc20 = web3.eth.contract(address=WERC20, abi=IWERC20)
    for amount in (ETHER, 0):
        before = web3.eth.get_balance(DEV0)
        data = werc20.functions.withdraw(amount).build_transaction({"gas": 100000, "nonce": 0})["data"]
        receipt = send(web3, {"to": WERC20, "data": data, "nonce": _nonce(web3), "gas": 100000})
        assert receipt.status == 1
        assert web3.eth.get_balance(DEV0) == before - _spent(web3, receipt)
        [log] = werc20.events.Withdrawal().process_receipt(receipt)
        assert (log["args"]["src"], log["args"]["wad"]) == (DEV0, amount)
    # Above the balance: cosmos/evm's text, by eth_call and in a block, and nothing moves.
    balance = web3.eth.get_balance(DEV0)
    too_much = balance + 1
    expected = f"account balance {balance} is lower than withdraw balance {too_much}"
    try:
        werc20.functions.withdraw(too_much).call({"from": DEV0})
        raise AssertionError("withdraw above the balance did not revert")
    except ContractLogicError as e:
        assert e.message == f"execution reverted: {expected}"
        assert e.data == "0x08c379a0" + encode(["string"], [expected]).hex()
    data = werc20.functions.withdraw(10**40).build_transaction({"gas": 100000, "nonce": 0})["data"]
    receipt = send(web3, {"to": WERC20, "data": data, "nonce": _nonce(web3), "gas": 100000})
    assert receipt.status == 0 and not receipt.logs
    assert web3.eth.get_balance(DEV0) == balance - _spent(web3, receipt)
    # A deposit is a transaction: a static call of it reverts as cosmos/evm's SetupABI does.
    answer = web3.provider.make_request("eth_call", [{"from": DEV0, "to": WERC20, "data": "0x"}, "latest"])
    assert "error" not in answer and answer["result"] == "0x"      # eth_call is not static
    assert _static_call_reason(web3, WERC20, keccak(b"deposit()")[:4]) == "write protection"


def _static_call_reason(web3, target, data):
    """The revert reason a STATICCALL of `target` with `data` (at most 32 bytes) gets, through a contract that
    returns it: its creation code staticcalls and returns the call's return data."""
    # PUSH32 data, PUSH1 0, MSTORE; STATICCALL(gas, target, 0, len(data), 0, 0);
    # RETURNDATACOPY(0, 0, RETURNDATASIZE); RETURN(0, RETURNDATASIZE)
    code = (b"\x7f" + data.ljust(32, b"\0") + b"\x60\x00\x52"
            + b"\x60\x00\x60\x00\x60" + bytes([len(data)]) + b"\x60\x00\x73" + bytes.fromhex(target[2:])
            + b"\x5a\xfa\x50" + b"\x3d\x60\x00\x60\x00\x3e\x3d\x60\x00\xf3")
    answer = web3.provider.make_request("eth_call", [{"from": DEV0, "data": "0x" + code.hex()}, "latest"])
    out = bytes.fromhex(answer["result"][2:])
    assert out[:4] == keccak(b"Error(string)")[:4], answer
    return decode(["string"], out[4:])[0]


@pytest_twisted.inlineCallbacks
def test_withdraw_logs_withdrawal_or_reverts_with_cosmos_evm_text(node):
    yield in_thread(_withdrawals, node)


STAKE = "0xe141e8c6980EF5aF5f7da847B7f802702239f36C"


def _reverts(node):
    web3 = w3(node)
    transfer = keccak(b"transfer(address,uint256)")[:4] + encode(["address", "uint256"], [OTHER, 1])

    def reason(tx):
        answer = web3.provider.make_request("eth_call", [{"from": DEV0, **tx}, "latest"])
        data = bytes.fromhex(answer["error"]["data"][2:])
        assert data[:4] == keccak(b"Error(string)")[:4], answer
        assert answer["error"]["message"] == "execution reverted: " + decode(["string"], data[4:])[0]
        return decode(["string"], data[4:])[0]

    assert reason({"to": STAKE, "data": "0x01"}) == "execution reverted"
    assert reason({"to": STAKE, "data": "0x"}) == "execution reverted"
    assert reason({"to": STAKE, "data": "0x12345678"}) == "no method with id: 0x12345678"
    assert reason({"to": STAKE, "data": "0x" + transfer.hex(), "value": "0x5"}) == "cannot receive funds, received: 5"
    assert reason({"to": STAKE, "data": "0x" + transfer[:20].hex()}).startswith("invalid arguments for transfer")
    # A write in a static call (a contract's STATICCALL): "write protection", as cosmos/evm's SetupABI answers.
    assert _static_call_reason(web3, STAKE, transfer[:4] + bytes(28)) == "write protection"


@pytest_twisted.inlineCallbacks
def test_erc20_precompile_reverts_carry_cosmos_evm_reasons(node):
    yield in_thread(_reverts, node)


# keccak of cosmos/evm's Erc20Bytecode (x/erc20/types/constants.go), 13,516 bytes: the code its erc20 keeper's
# RegisterERC20CodeHash puts at every ERC-20 precompile.
ERC20_CODE_HASH = "7b477c761b4d0469f03f27ba58d0a7eacbfdd62b69b82c6c683ae5f81c67fe80"


def _codes(node):
    web3 = w3(node)
    for token in (WERC20, STAKE):
        code = web3.eth.get_code(token)
        assert (len(code), keccak(code).hex()) == (13_516, ERC20_CODE_HASH), token
    # The modules' precompiles hold none, as cosmos/evm's.
    for address in ("0x0000000000000000000000000000000000000800", "0x0000000000000000000000000000000000000804"):
        assert web3.eth.get_code(address) == b"", address


@pytest_twisted.inlineCallbacks
def test_eth_get_code_of_precompiles_answers_as_cosmos_evm(node):
    yield in_thread(_codes, node)
