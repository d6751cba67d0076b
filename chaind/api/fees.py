"""Fee suggestions: eth_gasPrice, eth_maxPriorityFeePerGas and eth_feeHistory (geth's oracle rules).

Base fees come from the feemarket (stored per block); rewards are the tips txs actually paid.
"""

from chaind import errors
from chaind.api import encoding as enc
from chaind.api import params as p
from chaind.chain.modules.evm.results import evm_results

MAX_PERCENTILES = 100
# geth's gas price oracle (eth/gasprice): the blocks it samples, the lowest tips taken from each, the
# percentile of the samples it suggests, and tips below which a tx is not sampled (wei).
ORACLE_BLOCKS = 20
ORACLE_SAMPLES = 3
ORACLE_PERCENTILE = 60
ORACLE_IGNORE_BELOW = 2


class FeeApi:
    def __init__(self, app, settings):
        """settings: [json-rpc] (feehistory-cap)."""
        self.app = app
        self.settings = settings
        self._tip = (None, 0)       # (head hash, its suggestion): the head moves less often than it is asked

    def methods(self):
        return {
            "eth_gasPrice": lambda params: enc.q(self.app.next_base_fee() + self.suggested_tip()),
            "eth_maxPriorityFeePerGas": lambda params: enc.q(self.suggested_tip()),
            "eth_feeHistory": self.fee_history,
        }

    def suggested_tip(self):
        """geth's oracle over recent tips: the 3 lowest of each of the last 20 blocks, their 60th
        percentile; no tips paid lately (a solo chain's blocks are never full): none needed, 0."""
        header, meta = self.app.head
        if self._tip[0] == meta.hash:
            return self._tip[1]
        samples = []
        oldest = max(self.app.genesis.initial_height, header.height - ORACLE_BLOCKS + 1)
        for height in range(header.height, oldest - 1, -1):
            _, block = self.app.block_at(height)
            if not block.num_txs:
                continue
            tips = sorted(r.receipt.effective_gas_price - block.base_fee
                          for _, r in evm_results(self.app, height, block))
            samples += [t for t in tips if t >= ORACLE_IGNORE_BELOW][:ORACLE_SAMPLES]
        samples.sort()
        tip = samples[(len(samples) - 1) * ORACLE_PERCENTILE // 100] if samples else 0
        self._tip = (meta.hash, tip)
        return tip

    def fee_history(self, params):
        p.at_most(params, 3)
        count = _block_count(p.arg(params, 0))
        newest = p.block_number(p.arg(params, 1), 1, self.app)
        percentiles = _percentiles(p.arg(params, 2, required=False, default=[]))
        head = self.app.height
        if newest > head:
            raise errors.not_found(f"request beyond head block: requested {newest}, head {head}")
        count = min(count, self.settings.feehistory_cap)
        if count == 0:
            return {"oldestBlock": "0x0", "baseFeePerGas": [], "gasUsedRatio": []}
        oldest = max(newest - count + 1, self.app.genesis.initial_height - 1)
        base_fees, ratios, rewards = [], [], []
        for height in range(oldest, newest + 1):
            header, meta = self.app.block_at(height)
            base_fees.append(enc.q(meta.base_fee))
            ratios.append(meta.gas_used / meta.gas_limit if meta.gas_limit > 0 else 0.0)
            if percentiles:
                rewards.append([enc.q(r) for r in self._rewards(height, meta, percentiles)])
        following = self.app.next_base_fee() if newest == head else self.app.block_at(newest + 1)[1].base_fee
        base_fees.append(enc.q(following))
        out = {"oldestBlock": enc.q(oldest), "baseFeePerGas": base_fees, "gasUsedRatio": ratios}
        if percentiles:
            out["reward"] = rewards
        return out

    def _rewards(self, height, meta, percentiles):
        """Tips at each gas-weighted percentile of the block's txs, cheapest first."""
        paid = sorted((r.receipt.effective_gas_price - meta.base_fee, r.receipt.gas_used)
                      for _, r in evm_results(self.app, height, meta))
        if not paid:
            return [0] * len(percentiles)
        out, index, gas_sum = [], 0, paid[0][1]
        total = sum(gas for _, gas in paid)
        for percentile in percentiles:
            threshold = total * percentile / 100
            while gas_sum < threshold and index < len(paid) - 1:
                index += 1
                gas_sum += paid[index][1]
            out.append(paid[index][0])
        return out


def _block_count(value):
    """geth's HexOrDecimal64: a hex or decimal string, or a JSON number."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str):
        try:
            return int(value, 16) if value.startswith(("0x", "0X")) else int(value, 10)
        except ValueError:
            pass
    raise errors.invalid_argument(f"invalid argument 0: invalid block count {value!r}")


def _percentiles(value):
    if not isinstance(value, list):
        raise errors.invalid_argument("invalid argument 2: reward percentiles must be an array of numbers")
    if len(value) > MAX_PERCENTILES:
        raise errors.failed(f"invalid reward percentile: over {MAX_PERCENTILES} reward percentiles")
    for i, percentile in enumerate(value):
        if isinstance(percentile, bool) or not isinstance(percentile, (int, float)):
            raise errors.invalid_argument("invalid argument 2: reward percentiles must be an array of numbers")
        if not 0 <= percentile <= 100:
            raise errors.failed(f"invalid reward percentile: {percentile:f}")
        if i and percentile <= value[i - 1]:
            raise errors.failed(f"invalid reward percentile: #{i - 1}:{value[i - 1]:f} >= #{i}:{percentile:f}")
    return value
