"""Where the files of etc/ (default config, dev genesis) are, in a checkout or an install."""

import pathlib
import sys


def etc_file(name):
    for base in (pathlib.Path(__file__).parent.parent / "etc", pathlib.Path(sys.prefix) / "share" / "chaind" / "etc"):
        if (base / name).is_file():
            return base / name
    raise FileNotFoundError(f"{name} not found in etc/: reinstall chaind")
