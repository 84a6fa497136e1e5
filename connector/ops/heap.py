"""Big buffers go back to the operating system when freed (glibc's malloc).

glibc serves an allocation from mmap only above its mmap threshold, and raises that threshold (up to
32 MB) each time such a block is freed. After the first 16 MB BLOB row, blocks of that size come from
the heap, where freed space in the middle is kept, so the process's RSS climbs by tens of MB per big row
in flight and stays there. A fixed threshold keeps every block of 1 MB and more on mmap: freed at once,
for a cost (one mmap/munmap and fresh pages) that only big values pay.
"""

from __future__ import annotations

import ctypes
import logging

__all__ = ["MMAP_THRESHOLD_BYTES", "return_big_buffers_to_the_os"]

log = logging.getLogger(__name__)

MMAP_THRESHOLD_BYTES = 1 << 20
_M_MMAP_THRESHOLD = -3  # glibc's malloc.h


def return_big_buffers_to_the_os(threshold: int = MMAP_THRESHOLD_BYTES) -> bool:
    """Fix glibc's mmap threshold at `threshold` bytes; False where the C library has no such knob (musl,
    macOS), which only means the RSS after big rows is higher there."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    done = bool(mallopt(_M_MMAP_THRESHOLD, threshold))
    if not done:
        log.debug("mallopt(M_MMAP_THRESHOLD) refused; big buffers follow the C library's default")
    return done
