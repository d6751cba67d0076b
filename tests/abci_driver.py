"""A stand-in for CometBFT v0.38 in tests: it drives chaind apps over real ABCI sockets.

AbciClient is one connection (CometBFT opens consensus, mempool and query ones); Replica is one app
with its connections; Driver plays consensus for several replicas: the start-up handshake (Info,
InitChain, replay of stored blocks), rounds of PrepareProposal on the proposer, ProcessProposal and
FinalizeBlock on every app, Commit, and CheckTx with rechecks between. Blocking calls: run it in a thread.
"""

import json
import socket

import attrs
from google.protobuf import timestamp_pb2

from chaind.chain import merkle, valset
from chaind.chain.block import BlockId, Header, data_hash
from chaind.chain.genesis import Genesis
from chaind.consensus.abci.framing import FrameReader, frame
from chaind.pb.tendermint.abci import types_pb2 as pb
from chaind.pb.tendermint.crypto import keys_pb2
from chaind.pb.tendermint.types import params_pb2, validator_pb2


class AbciClosed(Exception):
    """The app closed the connection; `exception` is the Exception response it sent first, if any."""

    def __init__(self, exception=None):
        super().__init__(exception or "connection closed")
        self.exception = exception


class AbciClient:
    def __init__(self, port, timeout=120):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.reader = FrameReader(1 << 30)
        self.ready = []

    def send(self, *requests):
        self.sock.sendall(b"".join(frame(r.SerializeToString()) for r in requests))

    def receive(self):
        """The next Response; AbciClosed when the app hung up (after an Exception, its text)."""
        while not self.ready:
            data = self.sock.recv(1 << 16)
            if not data:
                raise AbciClosed()
            self.ready += self.reader.feed(data)
        response = pb.Response.FromString(self.ready.pop(0))
        if response.WhichOneof("value") == "exception":
            raise AbciClosed(response.exception.error)
        return response

    def call(self, kind, message):
        """One request and a Flush, as CometBFT's client sends a synchronous call; the answer's field."""
        self.send(pb.Request(**{kind: message}), pb.Request(flush=pb.RequestFlush()))
        response = self.receive()
        assert response.WhichOneof("value") == kind, response
        assert self.receive().WhichOneof("value") == "flush"
        return getattr(response, kind)

    def close(self):
        self.sock.close()


@attrs.define
class Decided:
    """A block as the driver's block store keeps it (what FinalizeBlock carries)."""

    height: int
    txs: list
    time_ns: int
    proposer: bytes
    hash: bytes
    next_validators_hash: bytes
    last_votes: list          # (address, power) that signed the previous block
    app_hash: bytes = b""     # the app hash FinalizeBlock returned


class Replica:
    """One app: its consensus, mempool and query connections."""

    def __init__(self, port):
        self.port = port
        self.consensus = AbciClient(port)
        self.mempool = AbciClient(port)
        self.query = AbciClient(port)

    def close(self):
        for c in (self.consensus, self.mempool, self.query):
            c.close()


def timestamp(ns):
    return timestamp_pb2.Timestamp(seconds=ns // 10**9, nanos=ns % 10**9)


class Driver:
    """Consensus for replicas fed the same genesis; `blocks` is the block store (height -> Decided)."""

    def __init__(self, genesis_doc):
        self.genesis = genesis_doc
        self.chain_id = genesis_doc["chain_id"]
        self.initial_height = int(genesis_doc.get("initial_height", "1"))
        self.blocks = {}
        self.validators = []        # the genesis set: valset.SetValidator, CometBFT's order
        self.sets = {}              # height -> the set from that height on (FinalizeBlock's updates at H
                                    # change the set of H + 2, as CometBFT applies them)
        self.genesis_app_hash = None
        self.last_results_hash = merkle.root([])
        self.signers = None         # addresses whose precommits the last commits carry (None: every validator)

    # -- handshake ---------------------------------------------------------------------------------

    def init_chain_request(self):
        g = self.genesis
        block = g["consensus_params"]["block"]
        params = params_pb2.ConsensusParams(block=params_pb2.BlockParams(max_bytes=int(block["max_bytes"]),
                                                                         max_gas=int(block["max_gas"])))
        validators = [pb.ValidatorUpdate(pub_key=keys_pb2.PublicKey(ed25519=v.pubkey), power=v.power)
                      for v in self.validators]
        return pb.RequestInitChain(time=timestamp(Genesis.from_document(g).genesis_time_ns), chain_id=self.chain_id,
                                   consensus_params=params, validators=validators,
                                   app_state_bytes=json.dumps(g["app_state"]).encode(),
                                   initial_height=self.initial_height)

    def handshake(self, replica):
        """Info; InitChain at height 0; then the stored blocks above the app's height replayed
        (FinalizeBlock and Commit, each app hash checked against the store). Returns the app's height."""
        info = replica.query.call("info", pb.RequestInfo(version="0.38.25", block_version=11, p2p_version=8,
                                                          abci_version="2.0.0"))
        height = info.last_block_height
        if height == 0:
            answer = replica.consensus.call("init_chain", self.init_chain_request())
            vals = valset.ordered([valset.SetValidator(valset.address_of(v.pub_key.ed25519), v.pub_key.ed25519,
                                                       v.power) for v in answer.validators])
            if self.genesis_app_hash is None:
                self.genesis_app_hash, self.validators = answer.app_hash, list(vals)
                self.sets[self.initial_height] = list(vals)
            assert answer.app_hash == self.genesis_app_hash
            assert list(vals) == self.validators
            height = self.initial_height - 1
        else:
            assert info.last_block_app_hash == self.blocks[height].app_hash, "app hash differs from the store's"
        for h in range(height + 1, max(self.blocks, default=0) + 1):
            response = self.finalize(replica, self.blocks[h])
            assert response.app_hash == self.blocks[h].app_hash, f"replayed block {h}: app hash differs"
            replica.consensus.call("commit", pb.RequestCommit())
        return height

    # -- rounds --------------------------------------------------------------------------------------

    def check(self, replica, raw, recheck=False):
        kind = pb.RECHECK if recheck else pb.NEW
        return replica.mempool.call("check_tx", pb.RequestCheckTx(tx=raw, type=kind))

    def next_height(self):
        return max(self.blocks, default=self.initial_height - 1) + 1

    def propose(self, proposer_replica, txs, time_ns, max_tx_bytes=22020096):
        """PrepareProposal on the proposer; returns its txs."""
        height = self.next_height()
        answer = proposer_replica.consensus.call("prepare_proposal", pb.RequestPrepareProposal(
            max_tx_bytes=max_tx_bytes, txs=txs, height=height, time=timestamp(time_ns),
            next_validators_hash=valset.hash_of(self.validators_at(height + 1)),
            proposer_address=self.proposer(height)))
        return list(answer.txs)

    def proposer(self, height):
        validators = self.validators_at(height)
        return validators[height % len(validators)].address

    def validators_at(self, height):
        return self.sets[max(h for h in self.sets if h <= max(height, self.initial_height))]

    def decide(self, txs, time_ns, block_hash=None, proposer=None):
        """The next block of the store; its hash is made as CometBFT makes a header's, unless given."""
        height = self.next_height()
        prev = self.blocks.get(height - 1)
        proposer = self.proposer(height) if proposer is None else proposer
        next_vals = valset.hash_of(self.validators_at(height + 1))
        if block_hash is None:
            header = Header(chain_id=self.chain_id, height=height, time_ns=time_ns,
                            last_block_id=BlockId(prev.hash, 1, prev.hash) if prev else BlockId(),
                            last_commit_hash=b"", data_hash=data_hash(txs),
                            validators_hash=valset.hash_of(self.validators_at(height)),
                            next_validators_hash=next_vals, consensus_hash=b"",
                            app_hash=prev.app_hash if prev else self.genesis_app_hash,
                            last_results_hash=self.last_results_hash, evidence_hash=b"", proposer_address=proposer)
            block_hash = header.hash()
        votes = [(v.address, v.power) for v in self.validators_at(height - 1)] if prev else []
        return Decided(height, list(txs), time_ns, proposer, block_hash, next_vals, votes)

    def process(self, replica, block):
        return replica.consensus.call("process_proposal", pb.RequestProcessProposal(
            txs=block.txs, hash=block.hash, height=block.height, time=timestamp(block.time_ns),
            next_validators_hash=block.next_validators_hash, proposer_address=block.proposer,
            proposed_last_commit=self._commit_info(block)))

    def finalize(self, replica, block):
        return replica.consensus.call("finalize_block", pb.RequestFinalizeBlock(
            txs=block.txs, decided_last_commit=self._commit_info(block), hash=block.hash, height=block.height,
            time=timestamp(block.time_ns), next_validators_hash=block.next_validators_hash,
            proposer_address=block.proposer))

    def _commit_info(self, block):
        """The last commit's votes: every validator signed, or only `signers` when set (the others absent)."""
        def flag(address):
            signed = self.signers is None or address in self.signers
            return validator_pb2.BLOCK_ID_FLAG_COMMIT if signed else validator_pb2.BLOCK_ID_FLAG_ABSENT
        return pb.CommitInfo(round=0, votes=[pb.VoteInfo(validator=pb.Validator(address=a, power=p),
                                                         block_id_flag=flag(a))
                                             for a, p in block.last_votes])

    def store(self, block, app_hash, tx_results):
        block.app_hash = app_hash
        self.blocks[block.height] = block
        self.last_results_hash = merkle.root([
            pb.ExecTxResult(code=r.code, data=r.data, gas_wanted=r.gas_wanted, gas_used=r.gas_used).SerializeToString()
            for r in tx_results])

    def run_block(self, replicas, block, kill_before_commit=None):
        """ProcessProposal, FinalizeBlock on every replica (identical answers), then Commit; the block
        goes into the store. Returns the FinalizeBlock response. `kill_before_commit(replica)` -> True
        leaves that replica out after its FinalizeBlock (it is being killed)."""
        for r in replicas:
            assert self.process(r, block).status == pb.ResponseProcessProposal.ACCEPT
        responses = [self.finalize(r, block) for r in replicas]
        first = responses[0].SerializeToString()
        assert all(resp.SerializeToString() == first for resp in responses), "replicas disagree on FinalizeBlock"
        for r in replicas:
            if kill_before_commit is not None and kill_before_commit(r):
                continue
            r.consensus.call("commit", pb.RequestCommit())
        self.store(block, responses[0].app_hash, responses[0].tx_results)
        updates = [(u.pub_key.ed25519, u.power) for u in responses[0].validator_updates]
        if updates:
            self.sets[block.height + 2] = list(valset.apply_updates(self.validators_at(block.height + 1), updates))
        return responses[0]
