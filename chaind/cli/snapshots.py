"""`chaind snapshots list|export|restore|dump|load|delete`: the node's state-sync snapshots, as the Cosmos SDK v0.50's
`snapshots` commands (client/snapshot), on a stopped node's home."""

import io
import tarfile

import click

from chaind.cli.offline import node_home, opened_app

SNAPSHOT_FILE = "_snapshot"     # the archive's first member: the Snapshot message (the SDK's SnapshotFileName)

_home = click.option("--home", default=None, envvar="CHAIND_HOME", type=click.Path(file_okay=False),
                     help="The application home directory (default ~/.chaind)")


def _store(home):
    from chaind.consensus.snapshots import SnapshotStore

    return SnapshotStore(node_home(home).data_dir / "snapshots")


def _format(value):
    if not 0 <= value < 2**32:
        raise click.BadParameter(f"{value} is out of range for a uint32 format")
    return value


@click.group("snapshots")
def snapshots():
    """Manage local snapshots"""


@snapshots.command("list")
@_home
def list_(home):
    """List local snapshots"""
    for s in _store(home).list():
        click.echo(f"height: {s.height} format: {s.format} chunks: {s.chunks}")


@snapshots.command("export")
@_home
@click.option("--height", default=0, type=click.IntRange(min=0), help="Height to export, default to latest state "
              "height")
def export(home, height):
    """Export app state to snapshot store"""
    from chaind import config
    from chaind.chain import snapshot

    found = node_home(home)
    settings = config.load(found.config_file) if found.config_file.is_file() else config.Settings()
    with opened_app(found) as app:
        height = height or app.height
        if height > app.height or height < max(app.oldest_state_height(), app.genesis.initial_height):
            raise click.ClickException(f"cannot export snapshot at height {height}: the node keeps the state of "
                                       f"heights {max(app.oldest_state_height(), app.genesis.initial_height)} to "
                                       f"{app.height}")
        click.echo(f"Exporting snapshot for height {height}")
        view = app.db.frozen()
        try:
            taken = _store(home).save(height, snapshot.FORMAT, snapshot.chunks(snapshot.item_bytes(
                app, view, height, settings.state_sync.snapshot_read_ahead_bytes)))
        except snapshot.SnapshotError as e:
            raise click.ClickException(str(e)) from None
        finally:
            view.release()
    click.echo(f"Snapshot created at height {taken.height}, format {taken.format}, chunks {taken.chunks}")


@snapshots.command("restore")
@_home
@click.argument("height", type=click.IntRange(min=0))
@click.argument("format", type=int)
def restore(home, height, format):
    """Restore app state from local snapshot"""
    from chaind.chain import snapshot

    store = _store(home)
    found = store.get(height, _format(format))
    if found is None:
        raise click.ClickException(f"failed to load snapshot: snapshot {height} format {format} not found")
    from chaind import config

    found_home = node_home(home)
    settings = config.load(found_home.config_file) if found_home.config_file.is_file() else config.Settings()
    with opened_app(found_home) as app:
        try:
            restoring = snapshot.Restore(app, found, None, settings.state_sync.max_restore_bytes,
                                         settings.state_sync.restore_batch_bytes,
                                         settings.state_sync.snapshot_read_ahead_bytes)
            for index in range(found.chunks):
                chunk = store.load_chunk(height, format, index)
                if chunk is None:
                    raise snapshot.SnapshotError(f"chunk {index} of snapshot {height} format {format} is missing")
                restoring.apply_chunk(chunk)
        except snapshot.SnapshotError as e:
            raise click.ClickException(str(e)) from None


@snapshots.command("dump")
@_home
@click.argument("height", type=click.IntRange(min=0))
@click.argument("format", type=int)
@click.option("-o", "--output", default="", help="output file")
def dump(home, height, format, output):
    """Dump the snapshot as portable archive format"""
    store = _store(home)
    found = store.get(height, _format(format))
    if found is None:
        raise click.ClickException("snapshot doesn't exist")
    output = output or f"{height}-{format}.tar.gz"
    # The chunks are compressed already: the archive uses the fastest gzip level, as the SDK's.
    with tarfile.open(output, "w:gz", compresslevel=1) as tar:
        _add(tar, SNAPSHOT_FILE, found.to_proto().SerializeToString())
        for index in range(found.chunks):
            chunk = store.load_chunk(height, format, index)
            if chunk is None:
                raise click.ClickException(f"failed to open chunk file {index}: it is missing")
            _add(tar, str(index), chunk)


def _add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), 0o644
    tar.addfile(info, io.BytesIO(data))


@snapshots.command("load")
@_home
@click.argument("archive_file", type=click.Path(dir_okay=False))
def load(home, archive_file):
    """Load a snapshot archive file (.tar.gz) into snapshot store"""
    from google.protobuf.message import DecodeError

    from chaind.chain import snapshot
    from chaind.pb.cosmos.store.snapshots.v1 import snapshot_pb2 as spb

    store = _store(home)
    try:
        tar = tarfile.open(archive_file, "r:gz")
    except (OSError, tarfile.TarError) as e:
        raise click.ClickException(f"failed to open archive file: {e}") from None
    with tar:
        try:
            header = tar.next()
            if header is None:
                raise click.ClickException("failed to read snapshot file header: EOF")
            if header.name != SNAPSHOT_FILE:
                raise click.ClickException(f"invalid archive, expect file: snapshot, got: {header.name}")
            try:
                wanted = snapshot.Snapshot.of_proto(spb.Snapshot.FromString(_read(tar, header)))
            except DecodeError as e:
                raise click.ClickException(f"failed to unmarshal snapshot: {e}") from None

            def chunks():
                for index in range(wanted.chunks):
                    member = tar.next()
                    if member is None:
                        return
                    if member.name != str(index):
                        raise click.ClickException(f"invalid archive, expect file: {index}, got: {member.name}")
                    yield _read(tar, member)

            try:
                saved = store.save(wanted.height, wanted.format, chunks())
            except snapshot.SnapshotError as e:
                raise click.ClickException(f"failed to save snapshot {e}") from None
        except (OSError, EOFError, tarfile.TarError) as e:
            raise click.ClickException(f"failed to read the archive: {e}") from None
    if saved != wanted:
        store.delete(wanted.height, wanted.format)
        raise click.ClickException("invalid archive, the saved snapshot is not equal to the original one")


def _read(tar, member):
    from chaind.chain import snapshot

    # A format-3 chunk is at most the format's chunk size; the snapshot message is far smaller.
    if not member.isfile() or member.size > snapshot.CHUNK_BYTES:
        raise click.ClickException(f"invalid archive: {member.name} is not a file of at most "
                                   f"{snapshot.CHUNK_BYTES} bytes")
    return tar.extractfile(member).read()


@snapshots.command("delete")
@_home
@click.argument("height", type=click.IntRange(min=0))
@click.argument("format", type=int)
def delete(home, height, format):
    """Delete a local snapshot"""
    _store(home).delete(height, _format(format))
