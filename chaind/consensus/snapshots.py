"""The node's state-sync snapshots on disk (data/snapshots/<height>/<format>/<chunk>, as the SDK lays them out) and
the manager that takes one every `snapshot-interval` blocks off the writer thread and keeps the recent ones.

Each snapshot's directory holds its chunks and `metadata`, the SDK's Snapshot message (height, format, chunk
count, hash, chunk hashes); it is written under a temporary name and renamed, so a listed snapshot is whole.
"""

import hashlib
import os
import pathlib
import shutil

from twisted.internet import threads
from twisted.logger import Logger

from chaind.chain import snapshot as snapshots
from chaind.pb.cosmos.store.snapshots.v1 import snapshot_pb2 as spb

log = Logger()


class SnapshotStore:
    def __init__(self, path):
        self.path = pathlib.Path(path)

    def _dir(self, height, format):
        return self.path / str(height) / str(format)

    def list(self):
        """The whole snapshots, newest first."""
        found = []
        if not self.path.is_dir():
            return found
        for height_dir in self.path.iterdir():
            if not height_dir.name.isdigit():
                continue
            for format_dir in height_dir.iterdir():
                meta = format_dir / "metadata"
                if format_dir.name.isdigit() and meta.is_file():
                    found.append(snapshots.Snapshot.of_proto(spb.Snapshot.FromString(meta.read_bytes())))
        return sorted(found, key=lambda s: (s.height, s.format), reverse=True)

    def get(self, height, format):
        meta = self._dir(height, format) / "metadata"
        return snapshots.Snapshot.of_proto(spb.Snapshot.FromString(meta.read_bytes())) if meta.is_file() else None

    def save(self, height, format, chunks):
        """Write `chunks` (an iterable of bytes) as snapshot (height, format); its Snapshot."""
        final = self._dir(height, format)
        if final.exists():
            raise snapshots.SnapshotError(f"snapshot already exists at height {height}")
        temp = final.parent / f".{format}.tmp"
        shutil.rmtree(temp, ignore_errors=True)
        temp.mkdir(parents=True)
        whole, hashes = hashlib.sha256(), []
        for index, chunk in enumerate(chunks):
            (temp / str(index)).write_bytes(chunk)
            whole.update(chunk)
            hashes.append(hashlib.sha256(chunk).digest())
        taken = snapshots.Snapshot(height, format, len(hashes), whole.digest(), tuple(hashes))
        with open(temp / "metadata", "wb") as f:
            f.write(taken.to_proto().SerializeToString())
            f.flush()
            os.fsync(f.fileno())
        os.rename(temp, final)
        return taken

    def load_chunk(self, height, format, index):
        """The chunk's bytes, or None when there is no such snapshot or chunk."""
        if self.get(height, format) is None:
            return None
        path = self._dir(height, format) / str(index)
        return path.read_bytes() if path.is_file() else None

    def delete(self, height, format):
        shutil.rmtree(self._dir(height, format), ignore_errors=True)
        height_dir = self.path / str(height)
        if height_dir.is_dir() and not any(height_dir.iterdir()):
            height_dir.rmdir()

    def prune(self, keep_recent):
        """Delete all but the `keep_recent` newest snapshots (0: keep all, as the SDK's); how many went."""
        if not keep_recent:
            return 0
        gone = self.list()[keep_recent:]
        for s in gone:
            self.delete(s.height, s.format)
        return len(gone)


class SnapshotManager:
    """Takes a snapshot of a committed height every `interval` blocks (0: never), one at a time, on the reactor's
    thread pool from a frozen view of the database the writer made right after the commit; keeps `keep_recent`."""

    def __init__(self, app, store, interval, keep_recent, reactor, max_restore_bytes, restore_batch_bytes,
                 read_ahead_bytes):
        self.app = app
        self.store = store
        self.interval = interval
        self.keep_recent = keep_recent
        self.max_restore_bytes = max_restore_bytes      # what a restore may inflate to ([state-sync])
        self.restore_batch_bytes = restore_batch_bytes  # what it writes at a time
        self.read_ahead_bytes = read_ahead_bytes        # a store's records read in one scan, taking or checking
        self.reactor = reactor
        self.taking = None          # the Deferred of the snapshot being taken

    def due(self, height):
        """Whether block `height` gets a snapshot (writer thread, right after its commit)."""
        return bool(self.interval) and height % self.interval == 0

    def take(self, view, height):
        """On the reactor: take the snapshot of `height` from `view` (released once done); its Deferred, or None
        when one is still being taken (this height is skipped, as the SDK skips it)."""
        if self.taking is not None:
            view.release()
            log.warn("snapshot of height {height} skipped: the one before it is still being taken", height=height)
            return None
        self.taking = threads.deferToThreadPool(self.reactor, self.reactor.getThreadPool(), self._take, view, height)

        def done(result):
            self.taking = None
            return result

        def failed(failure):
            log.failure("snapshot of height {height} failed", failure, height=height)
        self.taking.addBoth(done).addErrback(failed)
        return self.taking

    def _take(self, view, height):
        try:
            taken = self.store.save(height, snapshots.FORMAT,
                                    snapshots.chunks(snapshots.item_bytes(self.app, view, height,
                                                                          self.read_ahead_bytes)))
        finally:
            view.release()
        self.store.prune(self.keep_recent)
        log.info("snapshot taken at height {height}: {chunks} chunk(s)", height=height, chunks=taken.chunks)
        return taken
