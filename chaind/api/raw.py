"""debug_getRaw*: transactions, receipts, headers and blocks in their Ethereum binary encodings.

The header is the Ethereum (London) header of the fields eth_getBlockByNumber reports; the block hash this
chain uses is its CometBFT header's, so keccak of these bytes is not that hash.
"""

import rlp

from chaind import errors
from chaind.api import encoding as enc
from chaind.api import params as p
from chaind.chain.modules.evm.results import evm_results


class RawApi:
    def __init__(self, app, mempool):
        self.app = app
        self.mempool = mempool

    def methods(self):
        return {
            "debug_getRawTransaction": self.raw_transaction,
            "debug_getRawReceipts": self.raw_receipts,
            "debug_getRawHeader": self.raw_header,
            "debug_getRawBlock": self.raw_block,
        }

    def raw_transaction(self, params):
        """The signed tx's bytes; "0x" when no tx has that hash, as geth answers."""
        p.at_most(params, 1)
        evm_hash = p.block_hash(p.arg(params, 0), 0)
        position = self.app.tx_position(evm_hash, evm=True)
        if position is not None:
            tx = self.app.decode_tx(self.app.tx_at(*position))
        else:
            tx = self.mempool.get(evm_hash=evm_hash)
        return "0x" if tx is None else enc.d(tx.evm.encode())

    def raw_receipts(self, params):
        height, _, meta = self._block(params)
        return [enc.d(_receipt_bytes(tx, result.receipt)) for tx, result in self._evm_txs(height, meta)]

    def raw_header(self, params):
        _, header, meta = self._block(params)
        return enc.d(rlp.encode(_header_fields(header, meta)))

    def raw_block(self, params):
        height, header, meta = self._block(params)
        body = [rlp.decode(tx.evm.encode()) if tx.type_id == 0 else tx.evm.encode()
                for tx, _ in self._evm_txs(height, meta)]
        return enc.d(rlp.encode([_header_fields(header, meta), body, []]))

    def _block(self, params):
        p.at_most(params, 1)
        height = p.block_number_or_hash(p.arg(params, 0), 0, self.app)
        found = self.app.block_at(height)
        if found is None:
            raise errors.not_found(f"block #{height} not found")
        return height, *found

    def _evm_txs(self, height, meta):
        return [(self.app.decode_tx(self.app.tx_at(height, index)), result)
                for index, result in evm_results(self.app, height, meta)]


def _header_fields(header, meta):
    h = enc.head(header, meta)
    return [_b(h["parentHash"]), _b(h["sha3Uncles"]), _b(h["miner"]), _b(h["stateRoot"]),
            _b(h["transactionsRoot"]), _b(h["receiptsRoot"]), _b(h["logsBloom"]), 0, header.height,
            meta.gas_limit, meta.gas_used, header.time_ns // 10**9, b"", _b(h["mixHash"]), _b(h["nonce"]),
            meta.base_fee]


def _receipt_bytes(tx, receipt):
    """EIP-2718: a typed receipt is its type byte and the RLP; a legacy one the RLP alone."""
    encoded = rlp.encode([receipt.status, receipt.cumulative_gas_used, receipt.bloom,
                          [[log.address, list(log.topics), log.data] for log in receipt.logs]])
    return encoded if tx.type_id == 0 else bytes([tx.type_id]) + encoded


def _b(hex_text):
    return bytes.fromhex(hex_text[2:])
