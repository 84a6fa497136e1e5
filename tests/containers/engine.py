"""Is there a Docker engine to start containers on? One answer per session, with the reason."""

from __future__ import annotations

import functools
import os

DEFAULT_DOCKER_HOST = "unix:///var/run/docker.sock"


def docker_host() -> str:
    return os.environ.get("DOCKER_HOST") or DEFAULT_DOCKER_HOST


@functools.cache
def engine_problem() -> str | None:
    """None when an engine answers a ping, otherwise a sentence saying where nothing answered.

    The same question `docker info` asks, through the Docker SDK that testcontainers itself uses,
    so a machine without the docker CLI gets the same answer.
    """
    try:
        import docker  # noqa: PLC0415 - testcontainers' dependency; imported late so collection never fails
    except ImportError as exc:
        return f"the docker Python package is not installed ({exc}); pip install testcontainers"
    try:
        client = docker.from_env(timeout=5)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:  # noqa: BLE001 - any failure means the same thing: no usable engine
        first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return f"no Docker engine answers at {docker_host()} ({first_line})"
    return None
