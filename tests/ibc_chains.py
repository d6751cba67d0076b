"""Two chaind chains for IBC tests without a node: Apps on their own LevelDBs with their own chain ids and
validators, driven block by block on one clock, each a 07-tendermint client of the other made from the other's
real signed headers and commits (what /commit and /validators serve), and the relayer's proofs read as abci_query
/store/ibc/key reads them."""

import ibc_client_msgs as m
from chain_driver import PROPOSER, Chain
from chaind.chain.modules.ibc_client.host import revision_of
from chaind.chain.modules.staking.params import params as staking_params
from chaind.home import Home
from chaind.pb.cosmos.ics23.v1 import proofs_pb2
from chaind.pb.ibc.core.commitment.v1 import commitment_pb2
from chaind.pb.ibc.core.connection.v1 import connection_pb2 as conn_pb2
from chaind.pb.ibc.core.connection.v1 import tx_pb2 as conn_tx
from chaind.pb.tendermint.crypto import keys_pb2
from chaind.pb.tendermint.types import types_pb2, validator_pb2

S = 10**9
RELAYER = 1       # the dev key that signs the relayer's txs


class IbcChain:
    """A Chain with a chain id of its own, driven one block at a time at the clock its pair shares."""

    def __init__(self, tmp_path, chain_id):
        home = Home(tmp_path / "home")
        home.init("test", chain_id=chain_id, dev=True)
        self.chain = Chain(tmp_path, "db")
        self.app, self.genesis = self.chain.app, self.chain.genesis
        self.chain_id = chain_id
        self.relayer = self.chain.b32(self.chain.keys[RELAYER].address)

    @property
    def height(self):
        return self.app.height

    def block(self, clock, messages=(), gas=1_000_000):
        """One block at `clock` of one tx by the relayer with `messages` (none: an empty block); its result."""
        raws = [self.chain.native(self.chain.keys[RELAYER], list(messages), gas=gas)] if messages else []
        block, puts = self.app.finalize_block(raws, clock, PROPOSER)
        self.app.commit(block, puts)
        return block.results[0] if messages else None

    # What a relayer reads of this chain.

    def signed_header(self, height):
        """The SignedHeader of block `height` with its commit (/commit's)."""
        header, meta = self.app.block_at(height)
        following = self.app.block_at(height + 1)
        vote_time = following[0].time_ns if following else header.time_ns + 1_000_000
        bid = meta.block_id()
        commit = types_pb2.Commit(height=height, round=0, block_id=bid.proto(),
                                  signatures=self.app.precommit_sigs(height, bid, vote_time))
        return types_pb2.SignedHeader(header=header.proto(), commit=commit)

    def validator_set(self, height):
        """The set that signs block `height` (/validators')."""
        members = [validator_pb2.Validator(address=v.address, pub_key=keys_pb2.PublicKey(ed25519=v.pubkey),
                                           voting_power=v.power) for v in self.app.validator_set(height)]
        return validator_pb2.ValidatorSet(validators=members, proposer=members[0],
                                          total_voting_power=sum(v.voting_power for v in members))

    def header(self, height, trusted_height):
        """The 07-tendermint Header of block `height` that a client trusting `trusted_height` verifies."""
        return m.tm.Header(signed_header=self.signed_header(height), validator_set=self.validator_set(height),
                           trusted_height=m.height(trusted_height, revision_of(self.chain_id)),
                           trusted_validators=self.validator_set(trusted_height + 1))

    def client_state(self, height):
        """A client state of this chain at `height`, as a relayer makes one (trusting 2/3 of unbonding)."""
        unbonding = staking_params(self.app.view()).unbonding_time_ns
        return m.client_state(height, chain_id=self.chain_id, trusting=unbonding * 2 // 3, unbonding=unbonding)

    def consensus_state(self, height):
        return m.consensus_state(self.signed_header(height))

    def proof(self, path, height):
        """(value, MerkleProof bytes) of the ibc store's `path` in the state after block `height`, which the app
        hash of block height + 1 commits to."""
        value, ops = self.app.stores.read(self.app.store_version(height), "ibc", path.encode(), True)
        proof = commitment_pb2.MerkleProof(proofs=[proofs_pb2.CommitmentProof.FromString(op) for _, _, op in ops])
        return value, proof.SerializeToString()

    def close(self):
        self.chain.close()


class Pair:
    """Chains A and B on one clock, a second a block."""

    def __init__(self, tmp_path):
        self.a = IbcChain(tmp_path / "a", "chaina_9000-1")
        self.b = IbcChain(tmp_path / "b", "chainb_9001-1")
        self.clock = max(self.a.genesis.genesis_time_ns, self.b.genesis.genesis_time_ns)

    def block(self, chain, messages=()):
        """A block on `chain` (and an empty one on the other, so both clocks move); the tx's result."""
        self.clock += S
        other = self.b if chain is self.a else self.a
        other.block(self.clock)
        return chain.block(self.clock, messages)

    def close(self):
        self.a.close()
        self.b.close()


def create_client(pair, host, of):
    """On `host`, a client of chain `of` at its latest height; the result."""
    height = of.height
    return pair.block(host, [m.create(host.relayer, of.client_state(height), of.consensus_state(height))])


def update_client(pair, host, client_id, of, height):
    """On `host`, its client of `of` updated to block `height` of `of`."""
    cs = host.app.keepers["ibc_client"].client_state(host.app.view(), client_id)
    result = pair.block(host, [m.update(host.relayer, client_id, of.header(height, cs.latest_height.revision_height))])
    assert result.code == 0, result.log


# 03-connection's handshake, as a relayer drives it.

CONNECTION = "/ibc.core.connection.v1."


def counterparty(client_id, connection_id=""):
    found = conn_pb2.Counterparty(client_id=client_id, connection_id=connection_id)
    found.prefix.key_prefix = b"ibc"
    return found


def open_init(chain, client_id, their_client_id, version=None, delay_period=0):
    msg = conn_tx.MsgConnectionOpenInit(client_id=client_id, counterparty=counterparty(their_client_id),
                                        delay_period=delay_period, signer=chain.relayer)
    if version is not None:
        msg.version.CopyFrom(version)
    return CONNECTION + "MsgConnectionOpenInit", msg


def proven(pair, host, client_id, of, path):
    """(value, proof, proof height) of `path` on `of` in its state now, with `host`'s client of `of` updated to
    the block whose app hash commits to it."""
    height = of.height
    value, proof = of.proof(path, height)
    pair.block(host)                    # `of` makes block height + 1, whose header carries that state's hash
    update_client(pair, host, client_id, of, height + 1)
    return value, proof, m.height(height + 1, revision_of(of.chain_id))


def open_try(chain, client_id, theirs, their_versions, proof_init, proof_height, delay_period=0):
    return CONNECTION + "MsgConnectionOpenTry", conn_tx.MsgConnectionOpenTry(
        client_id=client_id, counterparty=theirs, delay_period=delay_period,
        counterparty_versions=their_versions, proof_height=proof_height, proof_init=proof_init,
        signer=chain.relayer)


def open_ack(chain, connection_id, their_connection_id, version, proof_try, proof_height):
    return CONNECTION + "MsgConnectionOpenAck", conn_tx.MsgConnectionOpenAck(
        connection_id=connection_id, counterparty_connection_id=their_connection_id, version=version,
        proof_height=proof_height, proof_try=proof_try, signer=chain.relayer)


def open_confirm(chain, connection_id, proof_ack, proof_height):
    return CONNECTION + "MsgConnectionOpenConfirm", conn_tx.MsgConnectionOpenConfirm(
        connection_id=connection_id, proof_ack=proof_ack, proof_height=proof_height, signer=chain.relayer)


# A running node as one of the two chains: what a relayer reads of it over CometBFT RPC.

def node_header(node, height, trusted_height):
    """The 07-tendermint Header of the node's block `height` from /commit and /validators."""
    from helpers import comet
    from light_headers import signed_header_from_json, validator_set_from_json

    def validators(h):
        return validator_set_from_json(comet(node, "validators", height=str(h))["result"]["validators"])

    signed = signed_header_from_json(comet(node, "commit", height=str(height))["result"]["signed_header"])
    revision = revision_of(node.app.genesis.chain_id)
    return m.tm.Header(signed_header=signed, validator_set=validators(height),
                       trusted_height=m.height(trusted_height, revision),
                       trusted_validators=validators(trusted_height + 1))


def mine(node):
    """One more block on a node (evm_mine): it makes blocks on demand."""
    import json
    import urllib.request

    from helpers import url

    request = urllib.request.Request(url(node), headers={"content-type": "application/json"}, data=json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "evm_mine", "params": []}).encode())
    with urllib.request.urlopen(request, timeout=20) as response:
        assert "error" not in json.loads(response.read())
