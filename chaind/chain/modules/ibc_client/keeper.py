"""02-client's keeper: client and consensus states under ICS-24 paths of the `ibc` store, the client counter and
params, creation and updates of 07-tendermint clients, as ibc-go v8's 02-client keeper runs them."""

import struct

from google.protobuf import any_pb2

from chaind.chain.block import event
from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_client import errors as e
from chaind.chain.modules.ibc_client import host, self_client
from chaind.chain.modules.ibc_client import tendermint as tmc
from chaind.consensus import light
from chaind.pb.ibc.core.client.v1 import client_pb2
from chaind.pb.ibc.lightclients.tendermint.v1 import tendermint_pb2 as tm

NAME = "ibc_client"
ALLOW_ALL = "*"
_ITERATE = b"iterateConsensusStates"
_HEIGHT = struct.Struct(">QQ")
_U64 = struct.Struct(">Q")


def pack(url, message):
    return any_pb2.Any(type_url=url, value=message.SerializeToString())


def height_proto(height):
    return client_pb2.Height(revision_number=height[0], revision_height=height[1])


def allowed(params, client_type):
    """Params.IsAllowedClient."""
    if not client_type.strip():
        return False
    clients = list(params.allowed_clients)
    return clients == [ALLOW_ALL] or client_type in clients


def validate_params(params):
    """Params.Validate; ValueError with ibc-go's text."""
    clients = list(params.allowed_clients)
    if ALLOW_ALL in clients and len(clients) > 1:
        raise ValueError(f"allow list must have only one element because the allow all clients wildcard "
                         f"({ALLOW_ALL}) is present")
    seen = set()
    for index, client_type in enumerate(clients):
        if not client_type.strip():
            raise ValueError(f"client type {index} cannot be blank")
        if client_type in seen:
            raise ValueError(f"duplicate client type: {client_type}")
        seen.add(client_type)


class ClientStore:
    """One client's keys (ibc-go's client-prefixed store, clients/{id}/...), read through a view or a block's
    context, written through a block's context."""

    def __init__(self, state, client_id):
        self.state, self.client_id = state, client_id

    def _key(self, *segments):
        return host.key(NAME, "clients", self.client_id, *segments)

    def get(self, *segments):
        return self.state.store.get(self._key(*segments))

    def set(self, value, *segments):
        self.state.store.set(self._key(*segments), value)

    def delete(self, *segments):
        self.state.store.delete(self._key(*segments))

    def client_state(self):
        raw = self.get("clientState")
        return None if raw is None else unpack_client_state(raw)

    def set_client_state(self, cs):
        self.set(pack(tmc.CLIENT_STATE_URL, tmc.normalized_client_state(cs)).SerializeToString(), "clientState")

    def consensus_state(self, height):
        raw = self.get("consensusStates", host.height_text(height))
        return None if raw is None else unpack_consensus_state(raw)

    def set_consensus_state(self, height, cons):
        self.set(pack(tmc.CONSENSUS_STATE_URL, tmc.normalized_consensus_state(cons)).SerializeToString(),
                 "consensusStates", host.height_text(height))

    def set_metadata(self, height, time_ns, processed_height, raw_processed_height=None):
        """setConsensusMetadata: when and at which of our heights the consensus state at `height` was stored."""
        text = host.height_text(height)
        self.set(_U64.pack(time_ns), "consensusStates", text, "processedTime")
        self.set(raw_processed_height or host.height_text(processed_height).encode(), "consensusStates", text,
                 "processedHeight")
        self.set(f"consensusStates/{text}".encode(), _ITERATE + _HEIGHT.pack(*height))

    def delete_consensus_state(self, height):
        text = host.height_text(height)
        for segments in (("consensusStates", text), ("consensusStates", text, "processedTime"),
                         ("consensusStates", text, "processedHeight"), (_ITERATE + _HEIGHT.pack(*height),)):
            self.delete(*segments)

    def processed_time(self, height):
        raw = self.get("consensusStates", host.height_text(height), "processedTime")
        return None if raw is None else _U64.unpack(raw)[0]

    def processed_height(self, height):
        raw = self.get("consensusStates", host.height_text(height), "processedHeight")
        return None if raw is None else host.parse_height(raw.decode())

    def heights(self):
        """The heights of the stored consensus states, ascending (ibc-go's iteration keys)."""
        prefix = host.scan_prefix(NAME, "clients", self.client_id) + bytes((len(_ITERATE) + 16,)) + _ITERATE
        return [_HEIGHT.unpack(key[len(prefix):len(prefix) + 16]) for key, _ in self.state.store.iterate(prefix)]

    def neighbours(self, height):
        """(the consensus state just below `height`, the one just above), each None when there is none."""
        below = above = None
        for found in self.heights():
            if found < height:
                below = found
            elif found > height:
                above = found
                break
        return (None if below is None else self.consensus_state(below),
                None if above is None else self.consensus_state(above))

    def metadata(self):
        """[(key without the client prefix, value)] of the client's metadata, in ibc-go's store order: processed
        times and heights, then the iteration keys (ExportMetadata)."""
        found = []
        prefix = host.scan_prefix(NAME, "clients", self.client_id)
        for native, value in self.state.store.iterate(prefix):
            path = host.path_of(native[len(host.scan_prefix(NAME)):])
            if path is None:
                continue
            rest = path[len(f"clients/{self.client_id}/"):]
            if rest.endswith((b"/processedTime", b"/processedHeight")) or rest.startswith(_ITERATE):
                found.append((rest, value))
        return sorted(found)


def unpack_client_state(raw):
    found = any_pb2.Any.FromString(raw)
    return tm.ClientState.FromString(found.value)


def unpack_consensus_state(raw):
    found = any_pb2.Any.FromString(raw)
    return tm.ConsensusState.FromString(found.value)


class ClientKeeper:
    """Reads through a view (any height) or a block's context, writes through a block's context; `chain_id` is this
    chain's (its revision numbers our heights), block_at(height) its (Header, BlockMeta) (the App's block store),
    where our own past headers are read."""

    def __init__(self, chain_id, block_at):
        self.chain_id = chain_id
        self.block_at = block_at

    # This chain as the counterparty's client of it sees it.

    def self_consensus_state(self, state, height):
        """GetSelfConsensusState: our consensus state at (revision, height), as staking's historical info has it."""
        return self_client.consensus_state(self.block_at, self.chain_id, state, height)

    def validate_self_client(self, ctx, cs):
        """ValidateSelfClient: TxError unless `cs` (a counterparty's client of us) matches this chain."""
        self_client.validate(self.chain_id, ctx, ctx.height, cs)

    # Counter and params.

    @staticmethod
    def next_client_sequence(state):
        raw = state.store.get(host.key(NAME, "nextClientSequence"))
        return 0 if raw is None else _U64.unpack(raw)[0]

    @staticmethod
    def set_next_client_sequence(ctx, sequence):
        ctx.store.set(host.key(NAME, "nextClientSequence"), _U64.pack(sequence))

    @staticmethod
    def params(state):
        """The params; a chain whose genesis had no ibc section has ibc-go's default (every client type)."""
        raw = state.store.get(host.key(NAME, "clientParams"))
        return client_pb2.Params(allowed_clients=[ALLOW_ALL]) if raw is None else client_pb2.Params.FromString(raw)

    @staticmethod
    def set_params(ctx, params):
        ctx.store.set(host.key(NAME, "clientParams"), params.SerializeToString())

    # Clients.

    @staticmethod
    def store(state, client_id):
        return ClientStore(state, client_id)

    def client_state(self, state, client_id):
        return ClientStore(state, client_id).client_state()

    def client_ids(self, state):
        """Every client's id, in the order of their clientState paths."""
        ids = []
        for native, _ in state.store.iterate(host.scan_prefix(NAME, "clients")):
            path = host.path_of(native[len(host.scan_prefix(NAME)):])
            if path is not None and path.endswith(b"/clientState") and path.count(b"/") == 2:
                ids.append(path.split(b"/")[1].decode())
        return sorted(ids)

    def status(self, state, client_id, now_ns, cs=None):
        """GetClientStatus: Unauthorized for a type the params leave out, else the client's own status."""
        cs = cs if cs is not None else self.client_state(state, client_id)
        if not allowed(self.params(state), tmc.CLIENT_TYPE):
            return tmc.UNAUTHORIZED
        return tmc.status(cs, ClientStore(state, client_id), now_ns)

    def verify_membership(self, ctx, client_id, height, delay_ns, delay_blocks, proof, path, value, active=None):
        """The client's VerifyMembership at our block `ctx`: TxError unless `proof` shows `value` at `path` (keys
        from the counterparty's root down: its prefix, then the ICS-24 path) at the client's `height`. `active`: the
        client state, when the caller has just found the client active in `ctx` (not read and judged again)."""
        cs = active if active is not None else self._active(ctx, client_id)
        tmc.verify_membership(cs, ClientStore(ctx, client_id), height, delay_ns, delay_blocks, proof, path, value,
                              ctx.time_ns, host.self_height(self.chain_id, ctx.height))

    def verify_non_membership(self, ctx, client_id, height, delay_ns, delay_blocks, proof, path, active=None):
        """The client's VerifyNonMembership: TxError unless `proof` shows that nothing is at `path` (`active` as
        verify_membership's)."""
        cs = active if active is not None else self._active(ctx, client_id)
        tmc.verify_non_membership(cs, ClientStore(ctx, client_id), height, delay_ns, delay_blocks, proof, path,
                                  ctx.time_ns, host.self_height(self.chain_id, ctx.height))

    @staticmethod
    def timestamp_at_height(state, client_id, height):
        """GetTimestampAtHeight: the client's consensus state's time at `height`, in nanoseconds."""
        cons = ClientStore(state, client_id).consensus_state(height)
        if cons is None:
            raise e.client_error(e.CONSENSUS_NOT_FOUND, f"height ({host.height_text(height)})")
        return light.time_ns(cons.timestamp)

    def _active(self, ctx, client_id):
        cs = self.client_state(ctx, client_id)
        if cs is None:
            raise e.client_error(e.CLIENT_NOT_FOUND, f"client ({client_id}) not found")
        status = self.status(ctx, client_id, ctx.time_ns, cs)
        if status != tmc.ACTIVE:
            raise e.client_error(e.CLIENT_NOT_ACTIVE, f"client ({client_id}) status is {status}")
        return cs

    def _set_metadata(self, ctx, store, height):
        store.set_metadata(height, ctx.time_ns, host.self_height(self.chain_id, ctx.height))

    def create_client(self, ctx, cs, cons):
        """CreateClient: a new client's id, its states stored; (client id, events)."""
        if not allowed(self.params(ctx), tmc.CLIENT_TYPE):
            raise e.client_error(e.INVALID_CLIENT_TYPE, f"client state type {tmc.CLIENT_TYPE} is not registered in "
                                                        "the allowlist")
        sequence = self.next_client_sequence(ctx)
        client_id = f"{tmc.CLIENT_TYPE}-{sequence}"
        self.set_next_client_sequence(ctx, sequence + 1)
        store = ClientStore(ctx, client_id)
        latest = host.height_of(cs.latest_height)
        store.set_client_state(cs)
        store.set_consensus_state(latest, cons)
        self._set_metadata(ctx, store, latest)
        status = self.status(ctx, client_id, ctx.time_ns, cs)
        if status != tmc.ACTIVE:
            raise e.client_error(e.CLIENT_NOT_ACTIVE, f"cannot create client ({client_id}) with status {status}")
        return client_id, [
            event("create_client", ("client_id", client_id), ("client_type", tmc.CLIENT_TYPE),
                  ("consensus_height", host.height_text(latest))),
            event("message", ("module", NAME))]

    def update_client(self, ctx, client_id, message):
        """UpdateClient with a Header or a Misbehaviour: verified, then the client frozen (misbehaviour) or its new
        consensus state stored; the events."""
        store = ClientStore(ctx, client_id)
        cs = store.client_state()
        if cs is None:
            raise e.client_error(e.CLIENT_NOT_FOUND, f"cannot update client with ID {client_id}")
        status = self.status(ctx, client_id, ctx.time_ns, cs)
        if status != tmc.ACTIVE:
            raise e.client_error(e.CLIENT_NOT_ACTIVE, f"cannot update client ({client_id}) with status {status}")
        if isinstance(message, tm.Header):
            tmc.verify_header(cs, store, message, ctx.time_ns)
        else:
            tmc.verify_misbehaviour(cs, store, message, ctx.time_ns)
        if tmc.misbehaving(store, message):
            cs.frozen_height.CopyFrom(height_proto(tmc.FROZEN_HEIGHT))
            store.set_client_state(cs)
            return [event("client_misbehaviour", ("client_id", client_id), ("client_type", tmc.CLIENT_TYPE)),
                    event("message", ("module", NAME))]
        heights = self._update_state(ctx, store, cs, message)
        texts = [host.height_text(h) for h in heights]
        url = tmc.HEADER_URL if isinstance(message, tm.Header) else tmc.MISBEHAVIOUR_URL
        return [event("update_client", ("client_id", client_id), ("client_type", tmc.CLIENT_TYPE),
                      ("consensus_height", texts[0] if texts else ""), ("consensus_heights", ",".join(texts)),
                      ("header", pack(url, message).SerializeToString().hex())),
                event("message", ("module", NAME))]

    def _update_state(self, ctx, store, cs, message):
        """UpdateState: prune the oldest consensus state if it expired, store the header's; the heights it
        stored (none for a Misbehaviour that did not misbehave)."""
        if not isinstance(message, tm.Header):
            return []
        self._prune_oldest(ctx, store, cs)
        height = tmc.header_height(message)
        if store.consensus_state(height) is not None:
            return [height]
        if height > host.height_of(cs.latest_height):
            cs.latest_height.CopyFrom(height_proto(height))
        store.set_client_state(cs)
        store.set_consensus_state(height, tmc.header_consensus_state(message))
        self._set_metadata(ctx, store, height)
        return [height]

    def recover_client(self, ctx, subject_id, substitute_id):
        """RecoverClient (governance): the subject, not active, takes the active substitute's latest consensus
        state, its height, chain id and trusting period, and is unfrozen; the events."""
        subject = self.client_state(ctx, subject_id)
        if subject is None:
            raise e.client_error(e.CLIENT_NOT_FOUND, f"subject client with ID {subject_id}")
        if self.status(ctx, subject_id, ctx.time_ns, subject) == tmc.ACTIVE:
            raise e.client_error(e.INVALID_RECOVERY, f"cannot recover {tmc.ACTIVE} subject client")
        substitute = self.client_state(ctx, substitute_id)
        if substitute is None:
            raise e.client_error(e.CLIENT_NOT_FOUND, f"substitute client with ID {substitute_id}")
        latest, subject_latest = host.height_of(substitute.latest_height), host.height_of(subject.latest_height)
        if subject_latest >= latest:
            raise e.client_error(e.INVALID_HEIGHT, "subject client state latest height is greater or equal to "
                                 "substitute client state latest height "
                                 f"({host.height_text(subject_latest)} >= {host.height_text(latest)})")
        status = self.status(ctx, substitute_id, ctx.time_ns, substitute)
        if status != tmc.ACTIVE:
            raise e.client_error(e.CLIENT_NOT_ACTIVE, f"substitute client is not {tmc.ACTIVE}, status is {status}")
        try:
            self._substitute(ctx, subject_id, subject, substitute_id, substitute, latest)
        except TxError as error:
            raise e.wrap(error, "failed to validate substitute client") from None
        return [event("recover_client", ("subject_client_id", subject_id), ("client_type", tmc.CLIENT_TYPE)),
                event("message", ("module", NAME))]

    @staticmethod
    def _substitute(ctx, subject_id, subject, substitute_id, substitute, latest):
        """CheckSubstituteAndUpdateState."""
        if not tmc.matching(subject, substitute):
            raise e.client_error(e.INVALID_SUBSTITUTE, "subject client state does not match substitute client state")
        source, target = ClientStore(ctx, substitute_id), ClientStore(ctx, subject_id)
        cons = source.consensus_state(latest)
        if cons is None:
            raise e.client_error(e.CONSENSUS_NOT_FOUND, "unable to retrieve latest consensus state for substitute "
                                 "client")
        target.set_consensus_state(latest, cons)
        processed_height = source.get("consensusStates", host.height_text(latest), "processedHeight")
        if not processed_height:
            raise e.client_error(e.UPDATE_FAILED, "unable to retrieve processed height for substitute client latest "
                                 "height")
        processed_time = source.processed_time(latest)
        if processed_time is None:
            raise e.client_error(e.UPDATE_FAILED, "unable to retrieve processed time for substitute client latest "
                                 "height")
        target.set_metadata(latest, processed_time, None, processed_height)
        subject.frozen_height.CopyFrom(height_proto(tmc.ZERO))
        subject.latest_height.CopyFrom(substitute.latest_height)
        subject.chain_id = substitute.chain_id
        subject.trusting_period.CopyFrom(substitute.trusting_period)
        target.set_client_state(subject)

    @staticmethod
    def _prune_oldest(ctx, store, cs):
        heights = store.heights()
        if not heights:
            return
        oldest = store.consensus_state(heights[0])
        if oldest is not None and tmc.is_expired(cs, light.time_ns(oldest.timestamp), ctx.time_ns):
            store.delete_consensus_state(heights[0])
