"""Starts the power bench's server (``examples/examples/power_server.rs``)
on a free loopback port for the tests, and stops it after them.

The server binary is ``$CAUSIM_POWER_SERVER`` if set, else the debug build
under the cargo target directory (``cargo build -p causim-examples
--example power_server``; ``.ci/python`` builds it).
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
from pathlib import Path
from typing import Iterator

import pytest

import causim_client

REPO = Path(__file__).resolve().parents[3]
#: How long the server may take to start listening, seconds.
START_LIMIT = 30.0
#: How long it may take to stop, seconds.
STOP_LIMIT = 10.0


def server_binary() -> Path:
    explicit = os.environ.get("CAUSIM_POWER_SERVER")
    if explicit:
        return Path(explicit)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "debug" / "examples" / "power_server"


class PowerServer:
    """A running server process and the address it listens on."""

    def __init__(self, *extra: str) -> None:
        binary = server_binary()
        if not binary.exists():
            raise RuntimeError(
                f"{binary} is missing: cargo build -p causim-examples --example power_server"
            )
        # Loopback only, a port the system picks; the server stops when
        # its standard input closes, so it cannot outlive the tests.
        self.process = subprocess.Popen(
            [str(binary), "--listen", "127.0.0.1:0", "--stop-on-eof", *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.address = self._read_address()

    def _read_address(self) -> str:
        lines: "queue.Queue[str]" = queue.Queue()
        assert self.process.stdout is not None
        stdout = self.process.stdout
        threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
        try:
            line = lines.get(timeout=START_LIMIT)
        except queue.Empty:
            self.stop()
            raise RuntimeError(f"the server did not listen within {START_LIMIT} s") from None
        prefix = "listening on "
        if not line.startswith(prefix):
            self.stop()
            raise RuntimeError(f"unexpected first line from the server: {line!r}")
        return line[len(prefix) :].strip()

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=STOP_LIMIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=STOP_LIMIT)


@pytest.fixture(scope="session")
def server() -> Iterator[PowerServer]:
    running = PowerServer()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def sim(server: PowerServer) -> Iterator[causim_client.Simulator]:
    """A client of a freshly built power bench."""
    with causim_client.connect(server.address, timeout=30.0) as simulator:
        simulator.init()
        yield simulator
