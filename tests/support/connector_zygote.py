"""A process that has imported the connector once and forks a `binlog-cdc` run per request (tests/support/warm_launch.py
is its client). Run as a script; it talks JSON lines over the socket passed as fd `argv[1]`.

Why: every `binlog-cdc` start spends ~1 s of CPU importing (sqlglot, pymysqlreplication, confluent_kafka, fastavro
and the project) before it does anything, and the suite starts hundreds. A fork of a process that has done so starts
in milliseconds. The zygote has no threads (librdkafka starts its threads only with a client), so a fork is safe.

Requests:  {"argv": [...], "env": {...}, "cwd": str|null, "log": path, "err": path (optional)}
Replies:   {"pid": n} or {"error": "..."};  at any time  {"exit": pid, "code": rc}  (rc < 0: killed by that signal)
"""
from __future__ import annotations

import atexit
import importlib
import json
import os
import pkgutil
import select
import signal
import socket
import sys
import threading
import time
import traceback


def _exit_code(code: object) -> int:
    """What the interpreter turns `sys.exit(code)` into."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _run_child(request: dict, control: socket.socket, wakeup_r: int, wakeup_w: int) -> None:
    """In the forked child: become `binlog-cdc ARGS` started from a shell (own session, stdio, env, cwd); never
    returns."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        control.close()
        os.close(wakeup_r)
        os.close(wakeup_w)
        os.setsid()
        log = os.open(request["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        # "err": stderr to a file of its own (a command whose streams a test reads apart), else with stdout
        err = os.open(request["err"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644) if request.get("err") else log
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(log, 1)
        os.dup2(err, 2)
        os.close(log)
        if err != log:
            os.close(err)
        os.close(devnull)
        if request.get("cwd"):
            os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        time.tzset()
        sys.argv = list(request["argv"])
        sys.path[0] = os.path.dirname(sys.argv[0])  # as for the console script: its own directory first
        from connector.cli import main

        try:
            code = _exit_code(main(sys.argv[1:]))
        except SystemExit as stop:
            code = _exit_code(stop.code)
        except BaseException:  # noqa: BLE001 - what an interpreter does with an uncaught exception
            traceback.print_exc()
            code = 1
        # An interpreter at exit waits for non-daemon threads, then runs atexit handlers.
        for thread in threading.enumerate():
            if thread is not threading.main_thread() and not thread.daemon:
                thread.join()
        atexit._run_exitfuncs()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _send(control: socket.socket, message: dict) -> None:
    control.sendall((json.dumps(message) + "\n").encode())


def _reap(control: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _send(control, {"exit": pid, "code": os.waitstatus_to_exitcode(status)})


def serve(control: socket.socket) -> None:
    wakeup_r, wakeup_w = os.pipe()
    os.set_blocking(wakeup_r, False)
    os.set_blocking(wakeup_w, False)
    signal.set_wakeup_fd(wakeup_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    pending = b""
    while True:
        ready, _, _ = select.select([control, wakeup_r], [], [])
        if wakeup_r in ready:
            while True:
                try:
                    if not os.read(wakeup_r, 512):
                        break
                except BlockingIOError:
                    break
            _reap(control)
        if control in ready:
            data = control.recv(65536)
            if not data:
                return  # the test process is gone; its children are on their own, as with Popen
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                request = json.loads(line)
                try:
                    pid = os.fork()
                except OSError as e:
                    _send(control, {"error": f"fork failed: {e}"})
                    continue
                if pid == 0:
                    _run_child(request, control, wakeup_r, wakeup_w)
                _send(control, {"pid": pid})
        _reap(control)  # a SIGCHLD that arrived between select and the handler


def main() -> None:
    control = socket.socket(fileno=int(sys.argv[1]))
    # Every module of the product, including those a run imports lazily (Avro, TLS, signals, snapshots, ...).
    import connector
    import schema_history
    import snapshot

    for package in (connector, snapshot, schema_history):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)

    _send(control, {"ready": os.getpid()})
    serve(control)


if __name__ == "__main__":
    main()
