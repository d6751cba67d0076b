"""The one place that writes EVM JSON-RPC objects: quantities, blocks, txs, receipts, logs."""

from chaind.crypto.addresses import checksum_address

EMPTY_TRIE_ROOT = "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"
EMPTY_UNCLES = "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347"


def q(value):
    return hex(value)


def d(value):
    return "0x" + bytes(value).hex()


def addr(value):
    # EIP-55 through the cache: a receipt or a block names the same few addresses again and again.
    if not value:
        return None
    return checksum_address(value if isinstance(value, (bytes, str)) else bytes(value))


def head(header, meta):
    """The Ethereum header object of a committed block (newHeads); blocks add their body to it."""
    return {
        "number": q(header.height),
        "hash": d(meta.hash),
        "parentHash": d(header.last_block_id.hash or bytes(32)),
        "nonce": "0x0000000000000000",
        "sha3Uncles": EMPTY_UNCLES,
        "logsBloom": d(meta.bloom),
        "transactionsRoot": d(header.data_hash) if meta.num_txs else EMPTY_TRIE_ROOT,
        "stateRoot": d(meta.evm_state_root),
        "receiptsRoot": EMPTY_TRIE_ROOT,
        "miner": addr(header.proposer_address) or addr(bytes(20)),
        "mixHash": d(bytes(32)),
        "difficulty": "0x0",
        "extraData": "0x",
        "gasLimit": q(meta.gas_limit),
        "gasUsed": q(meta.gas_used),
        "timestamp": q(header.time_ns // 10**9),
        "baseFeePerGas": q(meta.base_fee),
    }


def block(chain, header, meta, full_txs):
    """An Ethereum block object for a committed block (Evmos' field choices)."""
    height = header.height
    transactions, encoded = [], []
    for index in range(meta.num_txs):
        result = chain.result_at(height, index)
        if result.receipt is None:
            continue
        tx = chain.decode_tx(chain.tx_at(height, index))
        transactions.append(transaction(tx, header, meta, result) if full_txs else d(tx.evm_hash))
        encoded.append(tx.evm.encode())
    fields = head(header, meta)
    return {**fields, "totalDifficulty": "0x0", "size": q(block_size(fields, encoded)),
            "transactions": transactions, "uncles": []}


# The London header as geth encodes it, in RLP order (Header's fields up to BaseFee).
HEADER_RLP = ("parentHash", "sha3Uncles", "miner", "stateRoot", "transactionsRoot", "receiptsRoot", "logsBloom",
               "difficulty", "number", "gasLimit", "gasUsed", "timestamp", "extraData", "mixHash", "nonce",
               "baseFeePerGas")
HEADER_QUANTITIES = {"difficulty", "number", "gasLimit", "gasUsed", "timestamp", "baseFeePerGas"}


def block_size(fields, encoded_txs):
    """geth's Block.Size(): the RLP length of [header, txs, uncles] for the header shown and the EVM txs
    (a typed tx is an RLP string of its envelope, a legacy one its own list)."""
    import rlp

    header = [int(fields[k], 16) if k in HEADER_QUANTITIES else bytes.fromhex(fields[k][2:]) for k in HEADER_RLP]
    txs = b"".join(raw if raw[0] >= 0xC0 else rlp.encode(raw) for raw in encoded_txs)
    body = rlp.encode(header) + _list_prefix(len(txs)) + txs + rlp.encode([])
    return len(_list_prefix(len(body))) + len(body)


def _list_prefix(length):
    if length < 56:
        return bytes([0xC0 + length])
    size = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([0xF7 + len(size)]) + size


def transaction(tx, header=None, meta=None, result=None):
    """An Ethereum transaction object; block fields are null while the tx is pending."""
    e = tx.evm
    out = {
        "blockHash": d(meta.hash) if meta else None,
        "blockNumber": q(header.height) if header else None,
        "from": addr(tx.sender),
        "gas": q(e.gas),
        "hash": d(tx.evm_hash),
        "input": d(e.data),
        "nonce": q(e.nonce),
        "to": addr(e.to),
        "transactionIndex": q(result.receipt.tx_index) if result is not None else None,
        "value": q(e.value),
        "type": q(tx.type_id),
        "chainId": q(e.chain_id) if e.chain_id is not None else None,
        "v": q(e.v if tx.type_id == 0 else e.y_parity),
        "r": q(e.r),
        "s": q(e.s),
    }
    if tx.type_id == 2:
        out["maxFeePerGas"] = q(e.max_fee_per_gas)
        out["maxPriorityFeePerGas"] = q(e.max_priority_fee_per_gas)
        if result is not None and result.receipt is not None:
            out["gasPrice"] = q(result.receipt.effective_gas_price)
        else:
            out["gasPrice"] = q(e.max_fee_per_gas)
        out["yParity"] = q(e.y_parity)
    else:
        out["gasPrice"] = q(e.gas_price)
    if tx.type_id in (1, 2):
        out["accessList"] = [{"address": addr(a),
                              "storageKeys": [d(k if isinstance(k, bytes) else k.to_bytes(32, "big")) for k in keys]}
                             for a, keys in e.access_list]
    return out


def receipt(tx, header, meta, result):
    r = result.receipt
    return {
        "transactionHash": d(tx.evm_hash),
        "transactionIndex": q(r.tx_index),
        "blockHash": d(meta.hash),
        "blockNumber": q(header.height),
        "from": addr(tx.sender),
        "to": addr(tx.evm.to),
        "cumulativeGasUsed": q(r.cumulative_gas_used),
        "gasUsed": q(r.gas_used),
        "effectiveGasPrice": q(r.effective_gas_price),
        "contractAddress": addr(r.contract_address),
        "logs": [log(entry, tx.evm_hash, header, meta, r.tx_index, r.log_index_start + i)
                 for i, entry in enumerate(r.logs)],
        "logsBloom": d(r.bloom),
        "type": q(tx.type_id),
        "status": q(r.status),
    }


def log(entry, evm_hash, header, meta, index, log_index):
    return {
        "address": addr(entry.address),
        "topics": [d(t) for t in entry.topics],
        "data": d(entry.data),
        "blockNumber": q(header.height),
        "transactionHash": d(evm_hash),
        "transactionIndex": q(index),
        "blockHash": d(meta.hash),
        "logIndex": q(log_index),
        "removed": False,
    }
