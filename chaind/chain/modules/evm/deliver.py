"""An EVM tx in a block: py-evm execution, with the receipt and the events Evmos emits.

Fees follow Evmos: the whole fee (base fee and tip) goes to the fee collector; nothing is burned.
"""

import base64

import orjson
from eth_bloom import BloomFilter
from eth_utils import ValidationError

from chaind.chain import errors
from chaind.chain.block import EvmReceipt, Log, TxResult, event
from chaind.chain.modules.auth.keeper import FEE_COLLECTOR
from chaind.chain.modules.evm import transfer
from chaind.chain.modules.evm.vm import VM, vm_error
from chaind.crypto.addresses import checksum_address


def deliver(ctx, tx, bank):
    """Run one EVM tx in the block being built; a tx py-evm refuses changes nothing."""
    state = ctx.accounts

    def book_fee(computation):
        # py-evm pays the coinbase (the fee collector) the tip; Evmos keeps the base fee too.
        state.delta_balance(FEE_COLLECTOR, ctx.base_fee * VM.finalize_gas_used(tx.evm, computation))

    # A vesting account's locked coins pay neither value nor gas (bank's subUnlockedCoins in the SDK).
    locked = bank.auth.locked_coins(ctx, tx.sender, ctx.time_ns // 10**9).get(bank.base_denom)
    if locked:
        cost = tx.evm.gas * tx.evm.max_fee_per_gas + tx.evm.value
        have = max(0, state.get_balance(tx.sender) - locked)
        if have < cost:
            raise errors.insufficient_funds(
                f"spendable balance {have}{bank.base_denom} is smaller than {cost}{bank.base_denom}",
                f"insufficient funds for gas * price + value: address {checksum_address(tx.sender)} have {have} "
                f"want {cost}")
    # py-evm validates (nonce, balance, fee) before it changes anything.
    state.lock_changes()
    try:
        if ctx.execute is None:
            computation = transfer.apply(state, tx.evm) if transfer.applies(state, tx) else \
                state.apply_transaction(tx.evm)
            book_fee(computation)
        else:
            computation = ctx.execute(state, tx, book_fee)
    except ValidationError as e:
        state.native.take_events()
        raise errors.invalid_request(str(e)) from None
    # The bank events of the ERC-20 precompile calls that were not reverted.
    precompile_events = state.native.take_events()
    gas_used = VM.finalize_gas_used(tx.evm, computation)
    effective_price = state.get_gas_price(tx.evm)
    index = ctx.evm_tx_count
    ctx.evm_tx_count += 1

    failed = computation.is_error
    logs = () if failed else tuple(
        Log(address, tuple(t.to_bytes(32, "big") for t in topics), data)
        for address, topics, data in computation.get_log_entries())
    bloom = BloomFilter()
    for log in logs:
        bloom.add(log.address)
        for topic in log.topics:
            bloom.add(topic)
    contract = b""
    if tx.evm.to == b"" and not failed:
        contract = computation.msg.storage_address
    ctx.gas_used += gas_used
    receipt = EvmReceipt(
        status=0 if failed else 1, gas_used=gas_used, cumulative_gas_used=ctx.gas_used,
        effective_gas_price=effective_price, contract_address=contract, logs=logs,
        log_index_start=ctx.log_count, bloom=int(bloom).to_bytes(256, "big"),
        vm_error=vm_error(computation) if failed else "",
        return_data=computation.output, tx_index=index)
    log_events = [("txLog", _log_json(log, tx, index, ctx, i)) for i, log in enumerate(logs)]
    ctx.log_count += len(logs)
    ctx.bloom |= int(bloom)

    fee = effective_price * gas_used
    sender_b32 = bank.bech32(tx.sender)
    evm_hash = "0x" + tx.evm_hash.hex()
    # The order Evmos v20 emits: ante handler (fee, first ethereum_tx), then the message.
    events = []
    if fee:
        events += bank.transfer_events(tx.sender, FEE_COLLECTOR, [(bank.base_denom, fee)])
        events.append(event("message", ("sender", sender_b32)))
        events.append(event("tx", ("fee", f"{fee}{bank.base_denom}")))
    events.append(event("ethereum_tx", ("ethereumTxHash", evm_hash), ("txIndex", str(index))))
    events.append(event("message", ("action", "/ethermint.evm.v1.MsgEthereumTx"), ("sender", sender_b32)))
    events += precompile_events
    recipient = tx.evm.to or contract
    attributes = [("amount", str(tx.evm.value)), ("ethereumTxHash", evm_hash),
                  ("txIndex", str(index)), ("txGasUsed", str(gas_used)), ("txHash", tx.hash.hex())]
    if recipient:
        attributes.append(("recipient", checksum_address(recipient)))
    if failed:
        attributes.append(("ethereumTxFailed", receipt.vm_error))
    events.append(event("ethereum_tx", *attributes))
    events.append(event("tx_log", *log_events))
    events.append(event("message", ("module", "evm"), ("sender", checksum_address(tx.sender)),
                        ("txType", str(tx.type_id))))
    return TxResult(code=0, gas_wanted=tx.gas, gas_used=gas_used, events=tuple(events), receipt=receipt)


def _log_json(log, tx, index, ctx, i):
    """The txLog attribute: the log as Evmos' Log proto JSON."""
    return orjson.dumps({
        "address": checksum_address(log.address),
        "topics": ["0x" + t.hex() for t in log.topics],
        "data": _b64(log.data),
        "blockNumber": ctx.height,
        "transactionHash": "0x" + tx.evm_hash.hex(),
        "transactionIndex": index,
        "blockHash": "0x" + ctx.block_hash.hex(),
        "logIndex": ctx.log_count + i,
        "removed": False,
    }).decode()


def _b64(data):
    return base64.b64encode(data).decode()
