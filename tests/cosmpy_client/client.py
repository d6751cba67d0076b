"""Runs inside the cosmpy venv, driven by tests/test_cosmpy.py: one JSON job on stdin, one JSON answer on stdout.

cosmpy pins protobuf < 6 and the node's generated code needs protobuf 7, so cosmpy never shares a process with chaind.
"""

import json
import sys
from datetime import timedelta

import grpc
from cosmpy.aerial.client import LedgerClient, NetworkConfig
from cosmpy.aerial.client.bank import create_bank_send_msg
from cosmpy.aerial.tx import SigningCfg, Transaction, TxFee
from cosmpy.aerial.wallet import LocalWallet
from cosmpy.crypto.address import Address
from cosmpy.crypto.keypairs import PrivateKey


def client_for(job):
    return LedgerClient(NetworkConfig(chain_id=job["chain_id"], url=job["url"], fee_minimum_gas_price=job["gas_price"],
                                      fee_denomination=job["denom"], staking_denomination=job["denom"]),
                       query_interval_secs=1)


def query(client, job):
    """Balances and accounts as LedgerClient reads them."""
    answer = {"chain_id": client.query_chain_id(), "height": client.query_height(), "balance": {},
              "all_balances": {}, "accounts": {}}
    for address in job["addresses"]:
        answer["balance"][address] = client.query_bank_balance(Address(address), job["denom"])
        answer["all_balances"][address] = {c.denom: str(c.amount)
                                           for c in client.query_bank_all_balances(Address(address))}
    for address in job["accounts"]:
        account = client.query_account(Address(address))
        answer["accounts"][address] = {"address": str(account.address), "number": account.number,
                                       "sequence": account.sequence}
    return answer


def send(client, job):
    """A bank send signed by a cosmpy wallet (Cosmos secp256k1); gas either given or simulated."""
    wallet = LocalWallet(PrivateKey(bytes.fromhex(job["private_key"])), prefix=job["prefix"])
    answer = {"wallet": str(wallet.address())}
    if job.get("gas") is None:
        # What cosmpy's own estimate does (client/utils.py simulate_tx): a signed tx with an empty fee,
        # simulated. Its gas strategy then clips by cosmos.consensus.v1 Params, which we call apart.
        account = client.query_account(wallet.address())
        probe = Transaction()
        probe.add_message(create_bank_send_msg(wallet.address(), Address(job["to"]), job["amount"], job["denom"]))
        probe.seal(SigningCfg.direct(wallet.public_key(), account.sequence), fee=TxFee([], 0))
        probe.sign(wallet.signer(), client.network_config.chain_id, account.number)
        probe.complete()
        answer["simulated_gas"] = client.simulate_tx(probe)
        gas = int(answer["simulated_gas"] * job["gas_multiplier"])
    else:
        gas = job["gas"]
    fee = TxFee(amount=f"{gas * job['gas_price']}{job['denom']}", gas_limit=gas)
    submitted = client.send_tokens(Address(job["to"]), job["amount"], job["denom"], wallet, fee=fee)
    submitted.wait_to_complete(timeout=timedelta(seconds=30), poll_period=timedelta(seconds=0.1))
    response = submitted.response
    answer.update(txhash=submitted.tx_hash, height=response.height, code=response.code,
                  gas_wanted=response.gas_wanted, gas_used=response.gas_used, fee=gas * job["gas_price"],
                  event_types=sorted(response.events))
    account = client.query_account(wallet.address())
    answer["account_after"] = {"number": account.number, "sequence": account.sequence}
    return answer


def main():
    job = json.load(sys.stdin)
    client = client_for(job)
    try:
        answer = {"query": query, "send": send}[job["command"]](client, job)
    except grpc.RpcError as e:
        # The node's refusal, as the test wants to see it: status and message.
        answer = {"grpc_error": {"code": e.code().name, "details": e.details()}}
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
