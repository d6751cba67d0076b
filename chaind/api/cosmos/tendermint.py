"""cosmos.base.tendermint.v1beta1.Service: node info, syncing and blocks, as the SDK's cmtservice answers.

The SDK proxies these to CometBFT's RPC; here they read the same committed blocks that RPC serves (in socket
mode completed by that RPC's part-set headers and commits, which only CometBFT has), and ABCIQuery goes where
CometBFT's abci_query goes (the abci_query callable the node gives).
"""

import importlib.metadata
import platform
import re
import sys

import attrs
from google.protobuf import any_pb2

import chaind
from chaind import errors
from chaind.chain import block as blocks
from chaind.chain import votes
from chaind.chain.block import BlockId
from chaind.chain.queries import DEFAULT_LIMIT, Reader, query
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.base.query.v1beta1 import pagination_pb2
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2, query_pb2_grpc
from chaind.pb.cosmos.base.tendermint.v1beta1 import types_pb2 as sdk_types_pb2
from chaind.pb.cosmos.crypto.ed25519 import keys_pb2 as ed25519
from chaind.pb.tendermint.p2p import types_pb2 as p2p_pb2
from chaind.pb.tendermint.types import block_pb2, evidence_pb2, types_pb2

# The SDK release whose protos (protos/ headers) and behaviour this node answers with. The node is not the SDK:
# the semver build metadata says so, and keeps the value parseable (Go semver, and PEP 440 for cosmpy's
# packaging.Version, which sees 0.50.9 with a local label).
COSMOS_SDK_WIRE = "v0.50.9"
# The Go modules whose wire this node answers with, as an SDK chain's build deps name them: relayers read them
# (Hermes's health check wants the SDK, ibc-go and CometBFT or Tendermint there, each a semver in its range).
WIRE_MODULES = (("github.com/cometbft/cometbft", f"v{blocks.COMETBFT_VERSION}"),
                ("github.com/cosmos/cosmos-sdk", COSMOS_SDK_WIRE), ("github.com/cosmos/ibc-go/v8", "v8.5.3"))


def chaind_build(version):
    """`version` with chaind's own as semver build metadata: what answers is not that Go module."""
    local = re.sub(r"[^A-Za-z0-9]+", ".", chaind.__version__).strip(".")
    return f"{version}+chaind.{local}"


def cosmos_sdk_version():
    return chaind_build(COSMOS_SDK_WIRE)


def version_info():
    """application_version as the SDK's version.NewInfo fills it, from what a Python install knows: the build
    deps are the Go modules whose wire this node speaks (WIRE_MODULES) and the installed versions of chaind's
    requirements (no go.sum hash: `sum` stays empty). There is no commit nor build tags in an installed
    package; the SDK leaves those empty too when not set at build time."""
    deps = [query_pb2.Module(path=path, version=chaind_build(version)) for path, version in WIRE_MODULES]
    try:
        requirements = importlib.metadata.requires("chaind") or []
    except importlib.metadata.PackageNotFoundError:
        requirements = []          # run from a source tree that was never installed
    for requirement in requirements:
        if "extra ==" in requirement:
            continue
        name = re.match(r"[A-Za-z0-9._-]+", requirement).group(0)
        try:
            deps.append(query_pb2.Module(path=name, version=importlib.metadata.version(name)))
        except importlib.metadata.PackageNotFoundError:
            continue
    return query_pb2.VersionInfo(
        name="chaind", app_name="chaind", version=chaind.__version__,
        go_version=f"python {platform.python_version()} {sys.platform}/{platform.machine()}",
        build_deps=sorted(deps, key=lambda d: d.path), cosmos_sdk_version=cosmos_sdk_version())


class TendermintService(Reader, query_pb2_grpc.ServiceServicer):
    def __init__(self, app, max_per_page, rpc_address, abci_query, comet_records=None):
        """rpc_address() is the CometBFT RPC's address ("" when it is off); abci_query(path, data, height, prove)
        answers as CometBFT's abci_query does (code, log, value, height, codespace, key, proof_ops);
        comet_records: CometBFT's RPC (socket mode: it completes each block and answers node info and
        syncing), or None."""
        super().__init__(app)
        self.comet_records = comet_records
        self.valcons_prefix = app.genesis.bech32_prefix + "valcons"
        self.max_per_page = max_per_page
        self.rpc_address = rpc_address
        self.abci_query = abci_query
        self.version = version_info()

    # Not inline: in socket mode both read CometBFT's /status (the SDK's cmtservice asks its CometBFT too).
    @query
    def GetNodeInfo(self, request, view):
        if self.comet_records is not None:
            info = self.comet_records.status().node_info
        else:
            genesis, validator = self.app.genesis, self.app.genesis.initial_validators
            rpc_address = self.rpc_address()
            info = p2p_pb2.DefaultNodeInfo(
                protocol_version=p2p_pb2.ProtocolVersion(p2p=blocks.P2P_PROTOCOL, block=blocks.BLOCK_PROTOCOL),
                # No p2p layer: the node's identity is its validator's, its address the RPC's (as /status says).
                default_node_id=self.app.options.validator_address.hex(), listen_addr=rpc_address,
                network=genesis.chain_id, version=blocks.COMETBFT_VERSION,
                moniker=validator[0].moniker if validator else "",
                other=p2p_pb2.DefaultNodeInfoOther(tx_index="on", rpc_address=rpc_address))
        return query_pb2.GetNodeInfoResponse(default_node_info=info, application_version=self.version)

    @query
    def GetSyncing(self, request, view):
        if self.comet_records is not None:
            return query_pb2.GetSyncingResponse(syncing=self.comet_records.status().catching_up)
        # A solo producer is its own source of blocks: it never catches up.
        return query_pb2.GetSyncingResponse(syncing=False)

    @query
    def GetLatestBlock(self, request, view):
        parts = block_parts(self.app, self.app.height, self.valcons_prefix, self.comet_records)
        return query_pb2.GetLatestBlockResponse(**parts)

    @query
    def GetBlockByHeight(self, request, view):
        latest = self.app.height
        if request.height > latest:
            raise errors.invalid_argument("requested block height is bigger then the chain length")
        self._check_height(request.height)
        parts = block_parts(self.app, request.height, self.valcons_prefix, self.comet_records)
        return query_pb2.GetBlockByHeightResponse(**parts)

    @query
    def GetLatestValidatorSet(self, request, view):
        # CometBFT's validators route without a height: the set of the next block, the latest one known.
        return query_pb2.GetLatestValidatorSetResponse(**self._validators(self.app.height + 1, request.pagination))

    @query
    def GetValidatorSetByHeight(self, request, view):
        if request.height > self.app.height:
            raise errors.invalid_argument("requested block height is bigger then the chain length")
        self._check_height(request.height)
        return query_pb2.GetValidatorSetByHeightResponse(**self._validators(request.height, request.pagination))

    @query
    def ABCIQuery(self, request, view):
        if not request.path:
            raise errors.invalid_argument("empty query path")
        if request.path.removeprefix("/").split("/")[0] not in ("app", "store", "p2p", "custom"):
            raise errors.invalid_argument(f"unsupported ABCI query path: {request.path}")
        if request.height:
            self._check_height(request.height)
        answer = self.abci_query(request.path, request.data, request.height, request.prove)
        proof = query_pb2.ProofOps(ops=[query_pb2.ProofOp(type=kind, key=key, data=op)
                                        for kind, key, op in answer.proof_ops]) if answer.proof_ops else None
        return query_pb2.ABCIQueryResponse(code=answer.code, log=answer.log, value=answer.value, key=answer.key,
                                           height=answer.height, codespace=answer.codespace, proof_ops=proof)

    def _check_height(self, height):
        """CometBFT's checks of a height argument, which the SDK passes on as they are."""
        if height <= 0:
            raise errors.failed(f"height must be greater than 0, but got {height}")
        if height > self.app.height:
            raise errors.failed(f"height {height} must be less than or equal to the "
                                f"current blockchain height {self.app.height}")
        earliest = self.app.genesis.initial_height
        if height < earliest:
            raise errors.failed(f"height {height} is not available, lowest height is {earliest}")

    def _validators(self, height, page):
        """The SDK's ValidatorsOutput: offset/limit become CometBFT's page/per_page, which bound them."""
        limit = page.limit or DEFAULT_LIMIT
        number = page.offset // limit + 1
        per_page = min(limit, self.max_per_page)
        validators = self.app.validator_set(height)
        pages = max(1, -(-len(validators) // per_page))
        if number > pages:
            raise errors.failed(f"page should be within [1, {pages}] range, given {number}")
        start = (number - 1) * per_page
        return {"block_height": height, "pagination": pagination_pb2.PageResponse(total=len(validators)),
                "validators": [query_pb2.Validator(
                    address=to_bech32(self.valcons_prefix, v.address),
                    pub_key=any_pb2.Any(type_url="/cosmos.crypto.ed25519.PubKey",
                                        value=ed25519.PubKey(key=v.pubkey).SerializeToString()),
                    voting_power=v.power, proposer_priority=0) for v in validators[start:start + per_page]]}


def _evidence_list(app, height):
    """The block's evidence (what the solo producer included), as tendermint.types.EvidenceList."""
    _, _, carried = app.consensus_info(height)
    return evidence_pb2.EvidenceList(evidence=[evidence_pb2.Evidence(duplicate_vote_evidence=e) for e in carried])


def block_parts(app, height, valcons_prefix, comet_records=None):
    """block_id, block and sdk_block of a committed height, as GetBlockByHeight answers them.

    In socket mode (`comet_records`, a consensus.abci.comet_records.CometRecords) the block's part-set header and
    its last commit are CometBFT's, read from its RPC as the SDK's cmtservice reads the whole block: ABCI never
    gives them to the app. The header they complete must hash to the block hash CometBFT decided, or nothing
    is served."""
    header, meta = app.block_at(height)
    txs = [app.tx_at(height, i) for i in range(meta.num_txs)]
    if comet_records is None:
        block_id = meta.block_id()
        commit = types_pb2.Commit(height=max(header.height - 1, 0), block_id=header.last_block_id.proto(),
                                  signatures=app.commit_sigs(header))
    else:
        header, block_id, commit = _decided(header, meta, comet_records.block(height))
    fields = header.proto_fields()
    block = block_pb2.Block(header=header.proto(),
                            data=types_pb2.Data(txs=txs), evidence=_evidence_list(app, height),
                            last_commit=commit)
    sdk_block = sdk_types_pb2.Block(
        header=sdk_types_pb2.Header(proposer_address=to_bech32(valcons_prefix, header.proposer_address),
                                    **fields),
        data=block.data, evidence=block.evidence, last_commit=commit)
    return {"block_id": block_id.proto(), "block": block, "sdk_block": sdk_block}


def _decided(header, meta, theirs):
    """(header, block id, last commit) of a block this node recorded from FinalizeBlock, completed with
    CometBFT's record of it: the parent's full block id and the hash of the commit the block carries."""
    if theirs.block_id.hash != meta.hash:
        raise errors.failed(f"CometBFT's block {header.height} is {theirs.block_id.hash.hex().upper()}, this "
                            f"node committed {meta.hash.hex().upper()}")
    commit = theirs.last_commit
    last_block_id = BlockId(commit.block_id.hash, commit.block_id.part_set_header.total,
                            commit.block_id.part_set_header.hash)
    header = attrs.evolve(header, last_block_id=last_block_id,
                          last_commit_hash=votes.commit_hash(commit.signatures))
    if header.hash() != meta.hash:
        raise errors.failed(f"CometBFT's last commit of block {header.height} and this node's header of it do not "
                            f"hash to its block hash {meta.hash.hex().upper()}")
    return header, theirs.block_id, commit
