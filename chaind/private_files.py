"""Key files only their owner can read and homes only their owner can enter, made so from the start: a key is
never on disk with looser permissions, not even between its write and a chmod (CometBFT: 0600 files, 0700 dirs)."""

import os
import pathlib

KEY_FILE_MODE = 0o600       # CometBFT's priv_validator_key.json and node_key.json
HOME_DIR_MODE = 0o700       # CometBFT's DefaultDirPerm


def make_private_dirs(path):
    """`path` and its missing parents made with HOME_DIR_MODE (os.MkdirAll's way); existing ones are left as
    they are."""
    path = pathlib.Path(path)
    missing = []
    while not path.exists():
        missing.append(path)
        path = path.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=HOME_DIR_MODE)
        except FileExistsError:
            pass


def write_private(path, text):
    """Write `text` to `path` whole (a temporary file renamed over it), created with KEY_FILE_MODE."""
    path = pathlib.Path(path)
    temporary = path.with_name(path.name + ".tmp")
    try:
        # A leftover of a crash may have other permissions: O_EXCL makes the file anew, with ours.
        temporary.unlink()
    except FileNotFoundError:
        pass
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, KEY_FILE_MODE)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(temporary, path)
