"""Run as a script by test_heap.py: frees a 16 MB value below small live blocks and prints the kB kept."""
from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["main"]


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def main(mode: str) -> int:
    if mode == "fixed":
        sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
        from connector.ops.heap import return_big_buffers_to_the_os

        assert return_big_buffers_to_the_os()
    first = b"a" * (16 << 20)
    del first  # glibc raises its threshold to this size: the next such block comes from the heap
    before = _rss_kb()
    big = b"b" * (16 << 20)
    small = [bytearray(200) for _ in range(2000)]  # live blocks allocated after it
    del big
    print(_rss_kb() - before)
    return len(small) - 2000


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
