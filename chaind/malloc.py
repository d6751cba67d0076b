"""glibc's malloc told to keep two arenas: the node's many threads would otherwise each grow one.

By default glibc opens up to 8 arenas per core as threads contend; memory freed in one arena is not
reused by another, and under the soak's mixed load (gRPC, REST, tracing, the writer) RSS crept up a
few MB a minute. An operator's MALLOC_ARENA_MAX wins; on a libc without mallopt nothing changes.
"""

import ctypes
import os

M_ARENA_MAX = -8        # glibc's mallopt parameter number


def limit_arenas(count=2):
    """Ask glibc for at most `count` arenas; True when it agreed."""
    if "MALLOC_ARENA_MAX" in os.environ:
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(M_ARENA_MAX, count))


def trim():
    """Give the free pages of malloc's heaps back to the system (glibc's malloc_trim); True when some were.
    Python frees a slow client's queued messages, but malloc keeps the pages they held for reuse. It takes the
    arenas' locks for a few ms on a large heap: call it off the reactor."""
    try:
        malloc_trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return False
    malloc_trim.argtypes = (ctypes.c_size_t,)
    return bool(malloc_trim(0))
