"""erc20 at the App level (real LevelDB, no node): genesis pairs, the native coins' ERC-20 precompile moving
bank balances (reverts included), allowances, and an external ERC-20 registered and converted both ways."""

import pytest
from eth_abi import decode, encode
from eth_utils import keccak, to_checksum_address

from chain_driver import Chain, contract_address
from chaind.api.calls import CallRunner
from chaind.chain.authority import GOV
from chaind.chain.modules import erc20
from chaind.chain.modules.erc20 import precompile as erc20_precompile
from chaind.errors import ChainError
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.evmos.erc20.v1 import erc20_pb2, tx_pb2
from contracts import DELEGATOR_INIT, FORWARDER_INIT, token_init

STAKE = bytes.fromhex("e141e8c6980EF5aF5f7da847B7f802702239f36C")
IBC_TOKEN = bytes.fromhex("f36e4C1F926001CEaDa9cA97ea622B25f41e5eB2")
TRANSFER_TOPIC = keccak(b"Transfer(address,address,uint256)")
APPROVAL_TOPIC = keccak(b"Approval(address,address,uint256)")
MAX = 2**256 - 1


def calldata(signature, *args):
    types = signature[signature.index("(") + 1:-1]
    return keccak(signature.encode())[:4] + (encode(types.split(","), list(args)) if types else b"")


def word(address):
    return address.rjust(32, b"\0")


def make_chain(tmp_path):
    chain = Chain(tmp_path, "chain.db")
    chain.nonces = {}
    return chain


def evm(chain, who, **tx):
    nonce = chain.nonces.get(who, chain.app.view().accounts.get_nonce(chain.keys[who].address))
    chain.nonces[who] = nonce + 1
    return chain.evm(who, nonce, **tx)


def run(chain, raws, ok=True):
    height = chain.app.height + 1
    block, puts = chain.app.finalize_block(raws, chain.genesis.genesis_time_ns + height * 10**9, b"\x01" * 20)
    chain.app.commit(block, puts)
    if ok:
        assert all(r.code == 0 for r in block.results), [r.log for r in block.results]
    return block.results


def call(chain, to, data, height=None, sender=None):
    view = chain.app.view(height)
    runner = CallRunner(chain.app, 0, 10)
    found = {"to": "0x" + to.hex(), "data": "0x" + data.hex()}
    if sender is not None:
        found["from"] = "0x" + sender.hex()
    return bytes.fromhex(runner.call(found, view, {})[2:])


def balance_of(chain, token, who, height=None):
    return decode(["uint256"], call(chain, token, calldata("balanceOf(address)", who), height))[0]


def bank(chain, who, denom="stake", height=None):
    return chain.app.keepers["bank"].balance(chain.app.view(height), who, denom)


def native(chain, who, type_url, msg, gas=300000):
    return chain.native(chain.keys[who], [(type_url, msg)], gas=gas)


def test_genesis_registers_both_native_coins_at_their_derived_addresses(chain):
    view, keeper = chain.app.view(), chain.app.keepers["erc20"]
    pairs = {p.denom: p for _, p in keeper.all_pairs(view) if p.denom != "achain"}     # the EVM coin's: test_werc20
    assert set(pairs) == {chain.ibc, "stake"}
    # Evmos' rule for an IBC voucher: the last 20 bytes of its hash; other coins: of sha256(denom).
    assert pairs[chain.ibc].erc20_address == to_checksum_address(bytes.fromhex(chain.ibc[-40:])) \
        == to_checksum_address(IBC_TOKEN)
    assert erc20.pair_address("stake") == STAKE
    for pair in pairs.values():
        assert pair.enabled and pair.contract_owner == erc20_pb2.OWNER_MODULE
        assert keeper.pair_of(view, pair.erc20_address) == pair
        assert keeper.pair_of(view, pair.erc20_address.lower()[2:]) == pair     # hex without 0x, as Go's
        assert view.accounts.get_code(bytes.fromhex(pair.erc20_address[2:])) == erc20.PRECOMPILE_CODE
    params = keeper.params(view)
    assert params.enable_erc20 and list(params.dynamic_precompiles) == sorted(p.erc20_address for p in pairs.values())


def test_reads_come_from_the_bank_and_its_metadata(chain):
    k0 = chain.keys[0].address
    assert balance_of(chain, STAKE, k0) == bank(chain, k0) == 10**21
    assert balance_of(chain, IBC_TOKEN, k0) == bank(chain, k0, chain.ibc) == 10**15
    supply = chain.app.keepers["bank"].supply(chain.app.view(), "stake")
    assert decode(["uint256"], call(chain, STAKE, calldata("totalSupply()")))[0] == supply
    assert decode(["string"], call(chain, STAKE, calldata("name()")))[0] == "Stake"
    assert decode(["string"], call(chain, STAKE, calldata("symbol()")))[0] == "STK"
    assert decode(["uint8"], call(chain, STAKE, calldata("decimals()")))[0] == 18
    assert decode(["uint8"], call(chain, IBC_TOKEN, calldata("decimals()")))[0] == 6
    assert decode(["string"], call(chain, IBC_TOKEN, calldata("symbol()")))[0] == "ATOM"


def test_transfer_moves_the_bank_balance_with_a_transfer_log_and_bank_events(chain):
    k0, k1 = chain.keys[0].address, chain.keys[1].address
    fresh = b"\x77" * 20
    before = bank(chain, k0), bank(chain, k1)
    [result] = run(chain, [evm(chain, 0, to=STAKE, data=calldata("transfer(address,uint256)", k1, 5)),
                           evm(chain, 0, to=STAKE, data=calldata("transfer(address,uint256)", fresh, 7))])[:1]
    assert result.receipt.status == 1
    assert (bank(chain, k0), bank(chain, k1), bank(chain, fresh)) == (before[0] - 12, before[1] + 5, 7)
    [log] = result.receipt.logs
    assert log.address == STAKE and log.topics == (TRANSFER_TOPIC, word(k0), word(k1))
    assert int.from_bytes(log.data, "big") == 5
    kinds = [e.type for e in result.events]
    action = kinds.index("message", kinds.index("ethereum_tx"))
    # After the message's action event, before the message's own ethereum_tx: where Evmos' handler emits them.
    assert kinds[action + 1:action + 5] == ["coin_spent", "coin_received", "transfer", "message"]
    amounts = [dict((k, v) for k, v, _ in e.attributes).get("amount") for e in result.events[action + 1:action + 4]]
    assert amounts == ["5stake"] * 3
    # The fresh recipient became an account, as a bank send makes one.
    assert chain.app.keepers["auth"].account(chain.app.view(), fresh) is not None
    assert result.receipt.gas_used == 21000 + _calldata_gas(calldata("transfer(address,uint256)", k1, 5)) \
        + erc20_precompile.GAS_TRANSFER


def _calldata_gas(data):
    return sum(16 if b else 4 for b in data)


def test_a_bank_send_is_seen_by_balance_of_at_latest_and_at_a_past_height(chain):
    k2, k3 = chain.keys[2].address, chain.keys[3].address
    before_height = chain.app.height
    before = balance_of(chain, IBC_TOKEN, k3)
    run(chain, [chain.native_send(2, k3, 10**12)])
    assert balance_of(chain, IBC_TOKEN, k3) == bank(chain, k3, chain.ibc) == before + 10**12
    assert balance_of(chain, IBC_TOKEN, k3, before_height) == bank(chain, k3, chain.ibc, before_height) == before
    assert balance_of(chain, IBC_TOKEN, k2) == bank(chain, k2, chain.ibc)


def test_a_reverting_outer_call_undoes_the_bank_move_its_transfer_made(chain):
    k0 = chain.keys[0].address
    sink = b"\x55" * 20
    forwarder = contract_address(k0, chain.app.view().accounts.get_nonce(k0))
    run(chain, [evm(chain, 0, data=FORWARDER_INIT)])
    run(chain, [evm(chain, 0, to=STAKE, data=calldata("transfer(address,uint256)", forwarder, 100))])
    inner = calldata("transfer(address,uint256)", sink, 40)
    before = bank(chain, forwarder), bank(chain, sink)
    results = run(chain, [evm(chain, 0, to=forwarder, data=word(b"\x01") + word(STAKE) + inner),
                          evm(chain, 0, to=forwarder, data=word(b"") + word(STAKE) + inner)])
    reverted, kept = results
    assert reverted.receipt.status == 0 and reverted.receipt.logs == ()
    assert not [e for e in reverted.events if e.type == "coin_spent" and "stake" in str(e.attributes)]
    # The second forwards the same transfer without reverting: it alone moved coins, from the forwarder.
    assert kept.receipt.status == 1 and kept.receipt.logs[0].topics[1:] == (word(forwarder), word(sink))
    assert (bank(chain, forwarder), bank(chain, sink)) == (before[0] - 40, before[1] + 40)
    # A revert inside the same block after the kept move leaves the kept move alone.
    results = run(chain, [evm(chain, 0, to=forwarder, data=word(b"") + word(STAKE) + inner),
                          evm(chain, 0, to=forwarder, data=word(b"\x01") + word(STAKE) + inner)])
    assert [r.receipt.status for r in results] == [1, 0]
    assert (bank(chain, forwarder), bank(chain, sink)) == (before[0] - 80, before[1] + 80)


def test_eth_call_of_a_transfer_moves_nothing(chain):
    k0, k1 = chain.keys[0].address, chain.keys[1].address
    before = bank(chain, k0), bank(chain, k1)
    out = call(chain, STAKE, calldata("transfer(address,uint256)", k1, 9), sender=k0)
    assert decode(["bool"], out) == (True,)
    estimate = CallRunner(chain.app, 0, 10).estimate(
        {"from": "0x" + k0.hex(), "to": "0x" + STAKE.hex(),
         "data": "0x" + calldata("transfer(address,uint256)", k1, 9).hex()}, chain.app.view(), {})
    assert int(estimate, 16) == 21000 + _calldata_gas(calldata("transfer(address,uint256)", k1, 9)) \
        + erc20_precompile.GAS_TRANSFER
    assert (bank(chain, k0), bank(chain, k1)) == before


def test_approve_allowance_and_transfer_from(chain):
    k0, k1, k2 = (chain.keys[i].address for i in range(3))
    assert decode(["uint256"], call(chain, STAKE, calldata("allowance(address,address)", k0, k0)))[0] == MAX
    [approved] = run(chain, [evm(chain, 0, to=STAKE, data=calldata("approve(address,uint256)", k1, 50))])
    assert approved.receipt.logs[0].topics == (APPROVAL_TOPIC, word(k0), word(k1))
    assert decode(["uint256"], call(chain, STAKE, calldata("allowance(address,address)", k0, k1)))[0] == 50
    before = bank(chain, k0), bank(chain, k2)
    moved, too_much = run(chain, [
        evm(chain, 1, to=STAKE, data=calldata("transferFrom(address,address,uint256)", k0, k2, 30)),
        evm(chain, 1, to=STAKE, data=calldata("transferFrom(address,address,uint256)", k0, k2, 21))])
    assert moved.receipt.status == 1 and too_much.receipt.status == 0
    assert [log.topics[0] for log in moved.receipt.logs] == [TRANSFER_TOPIC, APPROVAL_TOPIC]
    assert int.from_bytes(moved.receipt.logs[1].data, "big") == 20
    assert (bank(chain, k0), bank(chain, k2)) == (before[0] - 30, before[1] + 30)
    assert decode(["uint256"], call(chain, STAKE, calldata("allowance(address,address)", k0, k1)))[0] == 20
    with pytest.raises(ChainError, match="ERC20: insufficient allowance"):
        call(chain, STAKE, calldata("transferFrom(address,address,uint256)", k0, k2, 21), sender=k1)
    run(chain, [evm(chain, 0, to=STAKE, data=calldata("increaseAllowance(address,uint256)", k1, 5)),
                evm(chain, 0, to=STAKE, data=calldata("decreaseAllowance(address,uint256)", k1, 25))])
    assert decode(["uint256"], call(chain, STAKE, calldata("allowance(address,address)", k0, k1)))[0] == 0
    with pytest.raises(ChainError, match="ERC20: insufficient allowance"):
        call(chain, STAKE, calldata("transferFrom(address,address,uint256)", k0, k2, 1), sender=k1)
    with pytest.raises(ChainError, match="spender cannot be the owner"):
        call(chain, STAKE, calldata("approve(address,uint256)", k0, 1), sender=k0)


def test_bad_calls_revert_with_a_reason(chain):
    k0, k1 = chain.keys[0].address, chain.keys[1].address
    cases = [
        (calldata("transfer(address,uint256)", k1, 10**30), "ERC20: transfer amount exceeds balance"),
        (calldata("transfer(address,uint256)", k1, 0), "coin 0stake amount is not positive"),
        (b"\x12\x34\x56\x78", "no method with id: 0x12345678"),
        (calldata("balanceOf(address)", k1)[:20], "invalid arguments for balanceOf"),
    ]
    for data, reason in cases:
        with pytest.raises(ChainError, match=reason):
            call(chain, STAKE, data, sender=k0)
    # Every revert carries an Error(string), as cosmos/evm's ReturnRevertError makes it.
    with pytest.raises(ChainError) as short:
        call(chain, STAKE, b"\x01")
    assert (short.value.message, short.value.data) == (
        "execution reverted: execution reverted", "0x08c379a0" + encode(["string"], ["execution reverted"]).hex())
    runner = CallRunner(chain.app, 0, 10)
    with pytest.raises(ChainError, match="cannot receive funds, received: 1"):
        runner.call({"from": "0x" + k0.hex(), "to": "0x" + STAKE.hex(), "value": "0x1",
                     "data": "0x" + calldata("transfer(address,uint256)", k1, 1).hex()}, chain.app.view(), {})
    delegator = contract_address(k0, chain.app.view().accounts.get_nonce(k0))
    run(chain, [evm(chain, 0, data=DELEGATOR_INIT)])
    before = bank(chain, k0)
    [result] = run(chain, [evm(chain, 0, to=delegator, data=word(b"") + word(STAKE)
                               + calldata("transfer(address,uint256)", k1, 1))])
    assert result.receipt.status == 0 and bank(chain, k0) == before


def test_an_external_erc20_registers_and_converts_both_ways(chain):
    k0, k1, k2 = (chain.keys[i].address for i in range(3))
    authority = chain.b32(k0)
    token = contract_address(k1, chain.app.view().accounts.get_nonce(k1))
    run(chain, [evm(chain, 1, data=token_init(10**24), gas=400000)])
    assert balance_of(chain, token, k1) == 10**24

    # Only the authority registers.
    register = tx_pb2.MsgRegisterERC20(authority=chain.b32(k1), erc20addresses=[to_checksum_address(token)])
    [refused] = run(chain, [native(chain, 1, "/evmos.erc20.v1.MsgRegisterERC20", register)], ok=False)
    assert (refused.codespace, refused.code) == ("gov", 13)
    gov = chain.b32(GOV)
    assert f"invalid authority; expected {gov} or {authority}, got {chain.b32(k1)}" in refused.log
    register = tx_pb2.MsgRegisterERC20(authority=authority, erc20addresses=[to_checksum_address(token)])
    [registered] = run(chain, [native(chain, 0, "/evmos.erc20.v1.MsgRegisterERC20", register)])
    denom = f"erc20/{to_checksum_address(token)}"
    pair = chain.app.keepers["erc20"].pair_of(chain.app.view(), denom)
    assert (pair.erc20_address, pair.enabled, pair.contract_owner) == (to_checksum_address(token), True,
                                                                      erc20_pb2.OWNER_EXTERNAL)
    assert ("register_erc20", (("cosmos_coin", denom, True), ("erc20_token", to_checksum_address(token), True))) \
        in [(e.type, e.attributes) for e in registered.events]
    found = chain.app.keepers["bank"].metadata(chain.app.view(), denom)
    assert (found["symbol"], found["display"], found["denom_units"][1]["exponent"]) == ("TT", "TestToken", 18)
    [again] = run(chain, [native(chain, 0, "/evmos.erc20.v1.MsgRegisterERC20", register)], ok=False)
    assert (again.codespace, again.code) == ("erc20", 5)

    # ERC-20 -> coin: tokens escrowed in the module account, coins minted to the receiver.
    convert = tx_pb2.MsgConvertERC20(contract_address=to_checksum_address(token), amount="1000",
                                     receiver=chain.b32(k2), sender=to_checksum_address(k1))
    [converted] = run(chain, [native(chain, 1, "/evmos.erc20.v1.MsgConvertERC20", convert)])
    assert balance_of(chain, token, k1) == 10**24 - 1000
    assert balance_of(chain, token, erc20.MODULE_ADDRESS) == 1000
    assert bank(chain, k2, denom) == 1000 and chain.app.keepers["bank"].supply(chain.app.view(), denom) == 1000
    assert "convert_erc20" in [e.type for e in converted.events]

    # coin -> ERC-20: coins burned, the module account's tokens sent to the receiver.
    back = tx_pb2.MsgConvertCoin(coin=coin_pb2.Coin(denom=denom, amount="400"),
                                 receiver=to_checksum_address(k0), sender=chain.b32(k2))
    [result] = run(chain, [native(chain, 2, "/evmos.erc20.v1.MsgConvertCoin", back)])
    assert bank(chain, k2, denom) == 600 and chain.app.keepers["bank"].supply(chain.app.view(), denom) == 600
    assert balance_of(chain, token, k0) == 400 and balance_of(chain, token, erc20.MODULE_ADDRESS) == 600
    assert [e.type for e in result.events].count("burn") == 1

    # More than the sender has: the tx fails, nothing moves (the EVM escrow call is undone too).
    too_much = tx_pb2.MsgConvertERC20(contract_address=to_checksum_address(token), amount=str(10**25),
                                      receiver=chain.b32(k2), sender=to_checksum_address(k1))
    [failed] = run(chain, [native(chain, 1, "/evmos.erc20.v1.MsgConvertERC20", too_much)], ok=False)
    assert (failed.codespace, failed.code) == ("evm", 10) and "execution reverted" in failed.log
    assert balance_of(chain, token, k1) == 10**24 - 1000

    # A disabled pair converts nothing; toggling is the authority's too.
    toggle = tx_pb2.MsgToggleConversion(authority=authority, token=denom)
    run(chain, [native(chain, 0, "/evmos.erc20.v1.MsgToggleConversion", toggle)])
    assert not chain.app.keepers["erc20"].pair_of(chain.app.view(), denom).enabled
    [disabled] = run(chain, [native(chain, 1, "/evmos.erc20.v1.MsgConvertERC20", convert)], ok=False)
    assert (disabled.codespace, disabled.code) == ("erc20", 13)
    assert "is not enabled by governance" in disabled.log


def test_conversions_of_native_coins_and_unknown_tokens_are_refused(chain):
    k0 = chain.keys[0].address
    for token, code in ((to_checksum_address(STAKE), 16), ("0x" + "12" * 20, 4)):
        msg = tx_pb2.MsgConvertERC20(contract_address=token, amount="1", receiver=chain.b32(k0),
                                     sender=to_checksum_address(k0))
        [result] = run(chain, [native(chain, 0, "/evmos.erc20.v1.MsgConvertERC20", msg)], ok=False)
        assert (result.codespace, result.code) == ("erc20", code), result.log
    msg = tx_pb2.MsgConvertCoin(coin=coin_pb2.Coin(denom=chain.ibc, amount="1"), receiver=to_checksum_address(k0),
                                sender=chain.b32(k0))
    [result] = run(chain, [native(chain, 0, "/evmos.erc20.v1.MsgConvertCoin", msg)], ok=False)
    assert (result.codespace, result.code, result.log) == (
        "erc20", 16, "failed to execute message; message index: 0: native coins manual conversion is disabled")


def test_stateless_checks_refuse_bad_messages(chain):
    k0 = chain.keys[0].address
    bad = [
        ("/evmos.erc20.v1.MsgConvertERC20", tx_pb2.MsgConvertERC20(
            contract_address="0x12", amount="1", receiver=chain.b32(k0), sender=to_checksum_address(k0)),
         "invalid contract hex address '0x12'"),
        ("/evmos.erc20.v1.MsgConvertERC20", tx_pb2.MsgConvertERC20(
            contract_address=to_checksum_address(STAKE), amount="0", receiver=chain.b32(k0),
            sender=to_checksum_address(k0)), "cannot mint a non-positive amount"),
        ("/evmos.erc20.v1.MsgRegisterERC20", tx_pb2.MsgRegisterERC20(
            authority=chain.b32(k0), erc20addresses=["nothex"]), "invalid ERC20 contract address: nothex"),
    ]
    for url, msg, text in bad:
        with pytest.raises(Exception, match=text):
            chain.app.check_tx(native(chain, 0, url, msg))


def test_module_disabled_by_params_refuses_registration_and_conversion(chain):
    k0 = chain.keys[0].address
    params = chain.app.keepers["erc20"].params(chain.app.view())
    params.enable_erc20 = False
    update = tx_pb2.MsgUpdateParams(authority=chain.b32(k0), params=params)
    run(chain, [native(chain, 0, "/evmos.erc20.v1.MsgUpdateParams", update)])
    register = tx_pb2.MsgRegisterERC20(authority=chain.b32(k0), erc20addresses=["0x" + "12" * 20])
    [result] = run(chain, [native(chain, 0, "/evmos.erc20.v1.MsgRegisterERC20", register)], ok=False)
    assert (result.codespace, result.code) == ("erc20", 2)
    assert "registration is currently disabled by governance" in result.log
    # Dropping a precompile from the params removes its contract: calls to it now do nothing.
    params.dynamic_precompiles.remove(to_checksum_address(STAKE))
    run(chain, [native(chain, 0, "/evmos.erc20.v1.MsgUpdateParams", tx_pb2.MsgUpdateParams(
        authority=chain.b32(k0), params=params))])
    assert chain.app.view().accounts.get_code(STAKE) == b""
    assert call(chain, STAKE, calldata("balanceOf(address)", k0)) == b""


def test_toggling_an_unknown_or_malformed_token_fails_the_message_only(chain):
    k0 = chain.keys[0].address
    for token in ("uosmo", "x" * 300, "0x" + "34" * 20):
        toggle = tx_pb2.MsgToggleConversion(authority=chain.b32(k0), token=token)
        [result] = run(chain, [native(chain, 0, "/evmos.erc20.v1.MsgToggleConversion", toggle)], ok=False)
        assert (result.codespace, result.code) == ("erc20", 4)
        assert f"token '{token}' not registered by id" in result.log
