"""Round trips of the Python client against a running power server: the
median and 99th percentile of ``send`` (ProcessEvent) and ``step``, and
the values per second of a subscription.

    cargo run --release --example power_server -- --listen 127.0.0.1:50051 &
    python server/python/benchmark.py 127.0.0.1:50051

Figures in docs/benchmarks.md ("Remote operation").
"""

from __future__ import annotations

import statistics
import sys
import threading
import time
from typing import Callable, List

import causim_client

CALLS = 5_000


def timed(call: Callable[[], object], calls: int = CALLS) -> List[float]:
    """Seconds per call, after as many untimed calls."""
    for _ in range(calls):
        call()
    durations = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        durations.append(time.perf_counter() - start)
    return durations


def percentile(values: List[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[round((len(ordered) - 1) * q)]


def streaming(sim: causim_client.Simulator, values: int = 50_000) -> float:
    """Bus voltages per second to a subscriber while the bench steps
    (one value per 10 s of simulated time)."""
    sim.init()
    received = 0
    done = threading.Event()
    with sim.subscribe("power/bus_voltage") as stream:
        def read() -> None:
            nonlocal received
            for _ in stream:
                received += 1
                if received == values:
                    done.set()
                    return

        reader = threading.Thread(target=read)
        reader.start()
        start = time.perf_counter()
        sim.step_until(10.0 * values, timeout=120)
        done.wait(timeout=120)
        elapsed = time.perf_counter() - start
        reader.join(timeout=10)
    return received / elapsed


def main(address: str) -> None:
    with causim_client.connect(address) as sim:
        sim.init()
        send = timed(lambda: sim.send("power/heater_on", True))
        step = timed(sim.step)
        time_ = timed(sim.time)
        us = 1e6
        print(f"time  (floor): p50 {percentile(time_, 0.5) * us:.0f} µs, p99 {percentile(time_, 0.99) * us:.0f} µs")
        print(f"send:          p50 {percentile(send, 0.5) * us:.0f} µs, p99 {percentile(send, 0.99) * us:.0f} µs")
        print(f"step:          p50 {percentile(step, 0.5) * us:.0f} µs, p99 {percentile(step, 0.99) * us:.0f} µs")
        print(f"subscription:  {streaming(sim):.0f} values/s")
        print(f"(mean send {statistics.mean(send) * us:.0f} µs)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:50051")
