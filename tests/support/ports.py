"""Free loopback ports (waiting on a condition is tests/support/waiting.py)."""
from __future__ import annotations

import socket


def free_port() -> int:
    """An OS-assigned free TCP port on 127.0.0.1.

    The port is released before the server binds it, so another process could take it in
    between; servers in this package retry their start once on "address in use".
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
