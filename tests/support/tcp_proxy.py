"""A TCP forwarder between a client and a server that records how the client ended each connection: `reset`
(an RST: the client closed with SO_LINGER 0) or `closed` (an orderly FIN). Used to see use.nongraceful.disconnect
from outside the connector, on its real connections to a real server."""
from __future__ import annotations

import socket
import threading
from typing import Literal

__all__ = ["TcpProxy"]

Ending = Literal["reset", "closed"]


class TcpProxy:
    def __init__(self, upstream_port: int, upstream_host: str = "127.0.0.1") -> None:
        self._upstream = (upstream_host, upstream_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self.accepted = 0  # client connections so far
        self.endings: list[Ending] = []  # one per client connection, in the order they ended
        self._threads: list[threading.Thread] = []
        self._stopped = False

    def __enter__(self) -> "TcpProxy":
        self._spawn(self._accept_loop, "proxy-accept")
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopped = True
        self._listener.close()

    def _spawn(self, target, name: str, *args) -> None:
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept_loop(self) -> None:
        while not self._stopped:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            self.accepted += 1
            server = socket.create_connection(self._upstream)
            self._spawn(self._client_to_server, "proxy-c2s", client, server)
            self._spawn(self._server_to_client, "proxy-s2c", server, client)

    def _client_to_server(self, client: socket.socket, server: socket.socket) -> None:
        ending: Ending = "closed"
        try:
            while data := client.recv(65536):
                server.sendall(data)
        except ConnectionResetError:
            ending = "reset"
        except OSError:
            pass
        with self._lock:
            self.endings.append(ending)
        for sock in (server, client):
            try:
                sock.close()
            except OSError:
                pass

    @staticmethod
    def _server_to_client(server: socket.socket, client: socket.socket) -> None:
        try:
            while data := server.recv(65536):
                client.sendall(data)
        except OSError:
            pass
        try:
            client.shutdown(socket.SHUT_WR)
        except OSError:
            pass
