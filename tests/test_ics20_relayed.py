"""Issue 31's Done when: two dev chains as real `chaind start` processes and @confio/relayer's Link (npm, unmodified)
between them. A's achain goes to B (the voucher on gRPC, REST, CLI and as an ERC-20 over B's JSON-RPC, whose transfer
moves it) and part of it comes home, from B's CLI and B's EVM; a transfer times out and one gets an error
acknowledgement, both refunded once relayed; a contract sends through the ICS20 precompile within the allowance its
caller approved; @cosmjs' sendIbcTokens amino-signs a MsgTransfer; then `chaind replay` re-executes both chains,
checking every app hash. Each relayer step is one Link.relayAll pass, so the test waits for few of them."""

import concurrent.futures
import hashlib
import json
import os
import pathlib
import subprocess
import time

import pytest
from eth_abi import decode
from web3 import Web3

from chaind.chain.modules import erc20
from chaind.chain.modules.transfer import escrow_address, ibc_denom, parse_trace
from chaind.crypto.addresses import checksum_address, to_bech32
from chaind.home import Home
from chaind.pb.cosmos.tx.signing.v1beta1 import signing_pb2
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from cosmjs_driver import CLIENT_DIR, RELAYER_DIR
from dev_chain_nodes import DevChain, balance, escrowed, send, supply
from ibc_evm import calldata

pytestmark = [pytest.mark.external, pytest.mark.slow]

MNEMONIC = "test test test test test test test test test test test junk"
GAS_PRICE = "20000000000achain"
VOUCHER = ibc_denom(parse_trace("transfer/channel-0/achain"))
TOKEN = checksum_address(erc20.pair_address(VOUCHER))
ESCROW_A = to_bech32("chain", escrow_address("transfer", "channel-0"))
ICS20 = "0x0000000000000000000000000000000000000802"
TRANSFER = "transfer(string,string,string,uint256,address,string,(uint64,uint64),uint64,string)"
FAR = 4 * 10**18                    # a timeout timestamp in 2096
ALLOCATIONS = "(string,string,(string,uint256)[],string[],string[])[]"
CALLER = json.loads((pathlib.Path(__file__).parent / "solidity" / "ICS20Caller.json").read_text())
ONE = 10**18


def relay(node, modules, a, b, op="relay", **more):
    """One step of tests/relayer_client/link.js between A and B; its answer, with the relayer's log."""
    job = {"a": a.url("cometbft"), "b": b.url("cometbft"), "mnemonic": MNEMONIC, "prefix": "chain",
           "gasPrice": GAS_PRICE, "op": op, "connA": "connection-0", "connB": "connection-0", **more}
    done = subprocess.run([node, str(RELAYER_DIR / "link.js")], input=json.dumps(job), capture_output=True,
                          text=True, timeout=300, env={**os.environ, "NODE_PATH": str(modules)})
    assert done.returncode == 0, done.stderr[-5000:]
    return json.loads(done.stdout), done.stderr


def evm_send(w3, key, to, data, gas=600_000):
    """An EVM tx of dev key `key` over JSON-RPC, waited for; its receipt."""
    tx = {"chainId": w3.eth.chain_id, "gas": gas, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 1,
          "nonce": w3.eth.get_transaction_count(key.address), "data": data}
    if to is not None:
        tx["to"] = to
    signed = w3.eth.account.sign_transaction(tx, key.private_key)
    return w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(signed.raw_transaction), timeout=60)


def test_ics20_between_two_nodes_relayed_by_ts_relayer(tmp_path, relayer, cosmjs):
    started = time.monotonic()
    node, modules = relayer
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        a, b = pool.map(lambda n: DevChain(tmp_path / f"chain{n}", n, 0.5), (1, 2))
    timings = {}

    def mark(step):
        timings[step] = time.monotonic() - started
    try:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            list(pool.map(DevChain.start, (a, b)))
        mark("nodes started")
        opened, _ = relay(node, modules, a, b, "open")
        assert opened == {"connA": "connection-0", "connB": "connection-0", "channelA": "channel-0",
                          "channelB": "channel-0"}
        mark("clients, connection, channel")
        dev1_b = b.address("dev1")
        supply_a = supply(a, "achain")

        # A's achain to B: escrowed on A, a voucher on B that is an ERC-20 at once.
        send(a, "dev0", dev1_b, f"{3 * ONE}achain")
        assert escrowed(a) == 3 * ONE and balance(a, ESCROW_A, "achain") == 3 * ONE
        done, log = relay(node, modules, a, b)
        assert done["packetsFromA"] == 1 and done["acksFromB"] == 1, log
        assert balance(b, dev1_b, VOUCHER) == 3 * ONE and supply(b, VOUCHER) == 3 * ONE
        rest = b.rest(f"/cosmos/bank/v1beta1/balances/{dev1_b}/by_denom?denom={VOUCHER}")
        assert rest["balance"] == {"denom": VOUCHER, "amount": str(3 * ONE)}
        shown = b.cli("q", "bank", "balances", dev1_b).stdout
        assert f'- amount: "{3 * ONE}"\n  denom: {VOUCHER}' in shown, shown
        trace = b.rest(f"/ibc/apps/transfer/v1/denom_traces/{VOUCHER.removeprefix('ibc/')}")
        assert trace["denom_trace"] == {"path": "transfer/channel-0", "base_denom": "achain"}
        w3b = Web3(Web3.HTTPProvider(b.url("json-rpc")))
        dev_b = Home(b.home).dev_keys()
        held = w3b.eth.call({"to": TOKEN, "data": calldata("balanceOf(address)", dev_b[1].address)})
        assert decode(["uint256"], held) == (3 * ONE,)
        pair = b.rest(f"/evmos/erc20/v1/token_pairs/{TOKEN}")["token_pair"]
        assert (pair["denom"], pair["erc20_address"], pair["enabled"], pair["contract_owner"]) == \
            (VOUCHER, TOKEN, True, "OWNER_MODULE")
        mark("A to B")

        # The voucher's ERC-20 moves its bank balance: dev1 gives dev2 one of three.
        moved = evm_send(w3b, dev_b[1], TOKEN, calldata("transfer(address,uint256)", dev_b[2].address, ONE))
        assert moved.status == 1
        dev2_b = b.address("dev2")
        assert balance(b, dev1_b, VOUCHER) == 2 * ONE and balance(b, dev2_b, VOUCHER) == ONE
        mark("ERC-20 transfer")

        # One relayer pass over three packets: a transfer from A that times out (sent first, 2 s to live; the
        # relayer proves B never received it and A refunds), one B refuses with an error acknowledgement (a module
        # account receiver; A refunds on the ack), and part of the voucher home from B (B burns, A releases).
        dev1_a, dev2_a, dev3_a = a.address("dev1"), a.address("dev2"), a.address("dev3")
        deadline = time.time_ns() + 2 * 10**9
        send(a, "dev2", dev1_b, f"{ONE}achain", "--absolute-timeouts", "--packet-timeout-height", "0-0",
             "--packet-timeout-timestamp", str(deadline))
        distribution = to_bech32("chain", hashlib.sha256(b"distribution").digest()[:20])
        send(a, "dev3", distribution, f"{ONE}achain")
        send(b, "dev1", dev1_a, f"{ONE}{VOUCHER}")
        assert escrowed(a) == 5 * ONE and supply(b, VOUCHER) == 2 * ONE
        sent_by = {who: balance(a, address, "achain") for who, address in
                   (("dev1", dev1_a), ("dev2", dev2_a), ("dev3", dev3_a))}
        time.sleep(max(0.0, (deadline - time.time_ns()) / 1e9) + 1.5)
        done, log = relay(node, modules, a, b)
        assert "Timeout 1 packets sent from chain_9000-1" in log, log
        assert (done["packetsFromA"], done["packetsFromB"], done["acksFromA"], done["acksFromB"]) == (2, 1, 1, 1), log
        assert balance(a, dev1_a, "achain") == sent_by["dev1"] + ONE
        assert balance(a, dev2_a, "achain") == sent_by["dev2"] + ONE
        assert balance(a, dev3_a, "achain") == sent_by["dev3"] + ONE
        assert escrowed(a) == 2 * ONE and balance(a, ESCROW_A, "achain") == 2 * ONE
        assert supply(b, VOUCHER) == 2 * ONE and balance(b, dev1_b, VOUCHER) == ONE
        assert balance(b, distribution, VOUCHER) == 0
        mark("home, a timeout, an error ack")

        # One more pass: a contract sends its caller's achain through 0x...0802 within the allowance the caller
        # approved; dev2 sends its voucher home from B's EVM through 0x...0802; @cosmjs' sendIbcTokens amino-signs
        # a MsgTransfer (the relayer's own secp256k1 key on A, funded in dev genesis).
        w3a = Web3(Web3.HTTPProvider(a.url("json-rpc")))
        user = Home(a.home).dev_keys()[4]
        made = evm_send(w3a, user, None, bytes.fromhex(CALLER["bytecode"].removeprefix("0x")), gas=1_500_000)
        assert made.status == 1
        contract = made.contractAddress
        approved = evm_send(w3a, user, ICS20, calldata(f"approve(address,{ALLOCATIONS})", contract,
                                                       [("transfer", "channel-0", [("achain", 2 * ONE)], [], [])]))
        assert approved.status == 1
        spent = evm_send(w3a, user, contract, calldata("transferForCaller(string,string,uint256,string)",
                                                       "channel-0", "achain", ONE, dev1_b))
        assert spent.status == 1
        allowed = w3a.eth.call({"to": ICS20, "data": calldata("allowance(address,address)", contract,
                                                              user.address)})
        assert decode([ALLOCATIONS], allowed)[0] == (("transfer", "channel-0", (("achain", ONE),), (), ()),)

        dev5_a = a.address("dev5")
        home_before = balance(a, dev5_a, "achain")
        returned = evm_send(w3b, dev_b[2], ICS20, calldata(TRANSFER, "transfer", "channel-0", VOUCHER, ONE,
                                                           dev_b[2].address, dev5_a, (0, 0), FAR, "from the EVM"))
        assert returned.status == 1

        runner, cosmjs_modules = cosmjs
        job = {"url": a.url("cometbft"), "mnemonic": MNEMONIC, "prefix": "chain", "gasPrice": GAS_PRICE,
               "signer": "hd", "steps": [{"op": "sendIbcTokens", "to": dev1_b, "amount": {"denom": "achain",
                                                                                       "amount": str(ONE)},
                                          "port": "transfer", "channel": "channel-0",
                                          "timeoutSeconds": int(time.time()) + 600,
                                          "memo": "amino by cosmjs"}]}
        signed = subprocess.run([runner, str(CLIENT_DIR / "sign.js")], input=json.dumps(job), capture_output=True,
                                text=True, timeout=180, env={**os.environ, "NODE_PATH": str(cosmjs_modules)})
        assert signed.returncode == 0, signed.stderr[-3000:]
        [result] = json.loads(signed.stdout)["results"]
        assert result["code"] == 0, result
        found = a.grpc(tx_grpc.ServiceStub, "GetTx", tx_service.GetTxRequest(hash=result["transactionHash"]))
        assert found.tx.auth_info.signer_infos[0].mode_info.single.mode == signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON
        assert found.tx.body.messages[0].type_url == "/ibc.applications.transfer.v1.MsgTransfer"

        done, log = relay(node, modules, a, b)
        assert (done["packetsFromA"], done["packetsFromB"], done["acksFromA"], done["acksFromB"]) == (2, 1, 1, 2), log
        assert balance(b, dev1_b, VOUCHER) == 3 * ONE and balance(b, dev2_b, VOUCHER) == 0
        assert balance(a, dev5_a, "achain") == home_before + ONE
        mark("Solidity, B's EVM, @cosmjs")

        # No coin created or lost: A's escrow is B's voucher supply; A's achain supply no lower than before
        # (escrowed, never burnt; inflation's epochs may only add).
        assert escrowed(a) == supply(b, VOUCHER) == 3 * ONE
        assert supply(a, "achain") >= supply_a
        heights = (a.height(), b.height())
    finally:
        a.stop()
        b.stop()

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        replayed = list(pool.map(DevChain.replay, (a, b)))
    for chain, height, last in zip((a, b), heights, replayed, strict=True):
        assert last >= height
        log = "".join(chain.process.output)
        assert "Traceback" not in log, log[-3000:]
    mark("replayed")
    print("".join(f"\n{seconds:6.1f} s  {step}" for step, seconds in timings.items()))
