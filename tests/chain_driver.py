"""A chain driven block by block without a node: an App on real LevelDB fed a fixed workload of
EVM transfers, contract writes and native sends (for pruning, replay and other store-level tests)."""

from cryptography.hazmat.primitives.asymmetric import ed25519
from eth_account import Account
from eth_utils import keccak

from chaind.chain import registry, txs, valset
from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.chain.options import AppOptions
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.store.db import Database
from contracts import INIT
from native_txs import build_native

PROPOSER = b"\x01" * 20
RECIPIENTS = [bytes([0x30 + i]) * 20 for i in range(3)]


class Chain:
    """An App on a real LevelDB fed a fixed workload: EVM transfers and contract writes, native sends. `settings`
    are AppOptions fields; the home's validator signs, as a Node sets it up."""

    def __init__(self, tmp_path, name, modules=registry.MODULES, **settings):
        self.home = Home(tmp_path / "home")
        if not self.home.exists():
            self.home.init("test", dev=True)
        self.genesis = Genesis.load(self.home.genesis_file)
        self.path = tmp_path / name
        self.modules = modules
        # The home's validator precommits every block, as a Node sets it up (else it would miss them all,
        # and x/slashing would jail it).
        self.settings = {"vote_key": ed25519.Ed25519PrivateKey.from_private_bytes(self.home.validator_key()),
                         "validator_address": valset.address_of(self.genesis.validators[0].consensus_pubkey),
                         **settings}
        self.keys = self.home.dev_keys()
        self.ibc = next(d for d, _ in self.genesis.balances[0][1] if d.startswith("ibc/"))
        self.open()

    def open(self, **settings):
        """Open the App on the store, with `settings` changed from the last ones (a node restarted with them)."""
        self.settings.update(settings)
        self.db = Database(self.path)
        self.app = App(self.db, self.genesis, AppOptions(**self.settings), self.modules)

    def reopen(self, **settings):
        """close() and open(**settings): the same chain under an App built with other settings."""
        self.close()
        self.open(**settings)

    def close(self):
        self.db.close()

    def evm(self, who, nonce, **tx):
        tx = {"chainId": 9000, "gas": 200000, "maxFeePerGas": 10**10, "maxPriorityFeePerGas": 1,
              "nonce": nonce, **tx}
        signed = Account.sign_transaction(tx, self.keys[who].private_key)
        return txs.wrap_evm(signed.raw_transaction, 9000, self.genesis.base_denom).raw

    def native_send(self, who, to, amount, pubkey_url=txs.ETH_PUBKEY):
        prefix = self.genesis.bech32_prefix
        msg = bank_tx.MsgSend(from_address=to_bech32(prefix, self.keys[who].address),
                              to_address=to_bech32(prefix, to),
                              amount=[coin_pb2.Coin(denom=self.ibc, amount=str(amount))])
        return self.native(self.keys[who], [(txs.MSG_SEND, msg)], pubkey_url=pubkey_url)

    def native(self, key, messages, pubkey_url=txs.ETH_PUBKEY, address=None, gas=200000, **options):
        """A native tx of `messages` signed by `key` (whose account is `address`, default its eth address)."""
        view = self.app.view()
        address = key.address if address is None else address
        number, _ = self.app.keepers["auth"].account(view, address)
        return build_native(messages, key, self.genesis.chain_id, number, view.accounts.get_nonce(address),
                            [(self.genesis.base_denom, self.app.next_base_fee() * gas)], gas,
                            pubkey_url=pubkey_url, **options)

    def b32(self, address):
        return to_bech32(self.genesis.bech32_prefix, address)

    def block(self, raws):
        height = self.app.height + 1
        block, puts = self.app.finalize_block(raws, self.genesis.genesis_time_ns + height * 10**9, PROPOSER)
        assert all(r.code == 0 for r in block.results), [r.log for r in block.results]
        self.app.commit(block, puts)
        return block

    def workload(self, step):
        """Block `step` of the workload (step 0 deploys two identical contracts, so they share nodes)."""
        if step == 0:
            return [self.evm(1, 0, data=INIT), self.evm(1, 1, data=INIT)]
        a, b = (contract_address(self.keys[1].address, n) for n in (0, 1))
        raws = [self.evm(0, step - 1, to=RECIPIENTS[step % 3], value=step),
                self.evm(1, step + 1, to=a if step > 2 else b, data=(step % 5 + 1).to_bytes(32, "big"))]
        # dev2's whole ibc balance goes to dev3 and back: a balance written, then a tombstone.
        if step % 2:
            raws.append(self.native_send(2, self.keys[3].address, 10**15))
        else:
            raws.append(self.native_send(3, self.keys[2].address, 10**15))
        return raws

    def reads(self, height):
        view = self.app.view(height)
        a, b = (contract_address(self.keys[1].address, n) for n in (0, 1))
        out = [view.accounts.get_balance(r) for r in RECIPIENTS]
        out += [view.accounts.get_storage(c, 0) for c in (a, b)] + [view.accounts.get_code(a)]
        out += [self.app.keepers["bank"].balance(view, k.address, self.ibc) for k in self.keys[2:4]]
        return out

    def scans(self, height=None):
        """Every dev key's balances at `height` (default: the head), each a prefix scan of the bank store."""
        view = self.app.view(height)
        return [tuple(self.app.keepers["bank"].all_balances(view, k.address)) for k in self.keys]


def contract_address(sender, nonce):
    import rlp

    return keccak(rlp.encode([sender, nonce]))[12:]


class LatestQueryContext:
    """The context a query handler is called with when no height was asked for (the latest)."""

    def requested_height(self):
        return None

    def answered_at(self, height):
        pass


def ok(block):
    """`block`, once every tx in it has succeeded (else the test fails with their logs)."""
    assert all(r.code == 0 for r in block.results), [r.log for r in block.results]
    return block


def balance(chain, address, denom="achain"):
    """`address`'s balance of `denom` at the chain's head."""
    return chain.app.keepers["bank"].balance(chain.app.view(), address, denom)
