"""Free loopback ports and waiting on conditions (no sleeps-as-synchronisation)."""
from __future__ import annotations

import socket
import time
from typing import Callable, TypeVar

T = TypeVar("T")


def free_port() -> int:
    """An OS-assigned free TCP port on 127.0.0.1.

    The port is released before the server binds it, so another process could take it in
    between; servers in this package retry their start once on "address in use".
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def wait_for(condition: Callable[[], T | None], timeout: float, what: str, interval: float = 0.1) -> T:
    """Poll `condition` until it returns something truthy; TimeoutError naming `what` otherwise."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)
