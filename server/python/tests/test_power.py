"""The Python client against the power bench, served on loopback."""

from __future__ import annotations

import random
import subprocess
import threading
import time as wall
from typing import Any, List

import grpc
import pytest

import causim_client
from causim_client import (
    AuthenticationError,
    InvalidRequestError,
    UnknownEndpointError,
    WrongStateError,
)

from conftest import REPO, PowerServer, server_binary

#: The survival heater's resistance, Ω.
HEATER_OHMS = 30.0


def samples(sim: causim_client.Simulator) -> List[Any]:
    """The bus telemetry not read yet."""
    return [v.value for v in sim.drain("power/telemetry")]


def test_endpoints_are_listed_with_their_types(sim: causim_client.Simulator) -> None:
    endpoints = sim.endpoints()
    kinds = {name: e.kind for name, e in endpoints.items()}
    assert kinds == {
        "power/heater_on": "event",
        "power/sample": "event",
        "power/ledger": "query",
        "power/battery": "query",
        "power/bus_voltage": "sink",
        "power/telemetry": "sink",
        "orbit/sunlit": "sink",
    }
    heater = endpoints["power/heater_on"]
    assert heater.payload_type == "bool"
    assert heater.payload_schema["type"] == "boolean"
    ledger = endpoints["power/ledger"]
    assert ledger.reply_type is not None and ledger.reply_type.endswith("BusLedger")
    assert ledger.reply_schema is not None and "solar_wh" in ledger.reply_schema["properties"]
    assert "initial_soc" in sim.config_schema()["properties"]


def test_stepping_moves_time_and_fills_the_sinks(sim: causim_client.Simulator) -> None:
    assert sim.time() == 0.0
    # The bus samples at 0 s (its init), then at 5 s past every 10 s mark.
    first = sim.read("power/bus_voltage")
    assert first is not None and first.time == 0.0
    assert sim.step() == 5.0
    assert sim.step_until(600.0) == 600.0
    latest = sim.read("power/bus_voltage")
    assert latest is not None and latest.time == 595.0
    assert 24.0 < latest.value < 33.0
    voltages = sim.drain("power/bus_voltage")
    assert [v.time for v in voltages] == [0.0] + [5.0 + 10 * i for i in range(60)]
    assert voltages.dropped == 0
    assert sim.drain("power/bus_voltage") == []
    assert sim.step_by(100.0) == 700.0


def test_the_heater_draws_power_once_switched_on(sim: causim_client.Simulator) -> None:
    sim.step_until(100.0)
    before = samples(sim)[-1]
    sim.send("power/heater_on", True)
    sim.step_until(120.0)
    after = samples(sim)
    assert [round(s["time_s"], 6) for s in after] == [105.0, 115.0]
    for sample in after:
        heater_w = sample["volts"] ** 2 / HEATER_OHMS
        assert sample["load_w"] - before["load_w"] == pytest.approx(heater_w, rel=0.02)
    sim.send("power/heater_on", False)
    sim.step_until(130.0)
    assert samples(sim)[-1]["load_w"] == pytest.approx(before["load_w"], rel=0.01)


def test_queries_return_one_reply_per_connection(sim: causim_client.Simulator) -> None:
    sim.step_until(3600.0)
    (ledger,) = sim.query("power/ledger")
    (battery,) = sim.query("power/battery", None)
    assert ledger["solar_wh"] > 0 and ledger["load_wh"] > 0
    assert battery["initial_wh"] == pytest.approx(0.9 * 300.0)
    assert 0.0 < battery["min_soc"] <= 0.9


def test_scheduled_events_come_at_their_time(sim: causim_client.Simulator) -> None:
    sim.schedule("power/heater_on", True, at=1000.0)
    sim.schedule("power/heater_on", False, after=1020.0)
    sim.step_until(1030.0)
    loads = {round(s["time_s"], 6): s["load_w"] for s in samples(sim)}
    assert loads[1005.0] > loads[995.0] + 20.0
    assert loads[1015.0] > loads[995.0] + 20.0
    assert loads[1025.0] == pytest.approx(loads[995.0], rel=0.01)


def test_a_subscription_streams_values_as_they_come(sim: causim_client.Simulator) -> None:
    received: List[causim_client.SinkValue] = []
    with sim.subscribe("orbit/sunlit") as eclipses, sim.subscribe("power/bus_voltage") as volts:
        def collect() -> None:
            for value in volts:
                received.append(value)
                if len(received) == 30:
                    return

        reader = threading.Thread(target=collect)
        reader.start()
        sim.step_until(2 * 95 * 60.0)
        reader.join(timeout=30)
        assert not reader.is_alive()
        transitions = []
        for value in eclipses:
            transitions.append((value.time, value.value))
            if len(transitions) == 3:
                break
    # Eclipse after 60 minutes, sunrise at the end of the orbit.
    assert transitions == [(3600.0, False), (5700.0, True), (9300.0, False)]
    assert [v.time for v in received] == [5.0 + 10 * i for i in range(30)]


def test_refused_calls_say_why_and_change_nothing(sim: causim_client.Simulator) -> None:
    sim.step_until(200.0)
    before = (sim.time(), sim.query("power/ledger"), sim.read("power/telemetry"))
    with pytest.raises(UnknownEndpointError, match=r"no event endpoint named `power/heater`.*`power/heater_on`"):
        sim.send("power/heater", True)
    with pytest.raises(InvalidRequestError, match=r"is not a JSON `bool`"):
        sim.send("power/heater_on", 3)
    with pytest.raises(InvalidRequestError, match=r"is a sink, not a query endpoint"):
        sim.query("power/bus_voltage")
    with pytest.raises(InvalidRequestError, match=r"before the current time"):
        sim.step_until(100.0)
    with pytest.raises(InvalidRequestError, match=r"unknown field `soc`"):
        sim.init(soc=0.5)
    with pytest.raises(InvalidRequestError, match=r"`threads` must be from 1 to 64, got 100000"):
        sim.init(threads=100000)
    with pytest.raises(InvalidRequestError, match="could not be restored"):
        sim.restore(b"not a snapshot")
    with pytest.raises(ValueError):
        sim.schedule("power/heater_on", True)
    after = (sim.time(), sim.query("power/ledger"), sim.read("power/telemetry"))
    assert after == before


def test_a_saved_bench_is_restored_and_continues(sim: causim_client.Simulator) -> None:
    sim.step_until(1000.0)
    snapshot = sim.save()
    sim.step_until(3000.0)
    ledger = sim.query("power/ledger")
    telemetry = sim.drain("power/telemetry")
    # Back to 1000 s, in a bench built again from the same configuration.
    assert sim.restore(snapshot) == 1000.0
    sim.step_until(3000.0)
    assert sim.query("power/ledger") == ledger
    assert [v.value for v in sim.drain("power/telemetry")] == [v.value for v in telemetry if v.time > 1000.0]


def test_a_run_holds_the_bench_until_halted(sim: causim_client.Simulator) -> None:
    outcome: List[causim_client.RunResult] = []
    runner = threading.Thread(target=lambda: outcome.append(sim.run(timeout=60)))
    runner.start()
    limit = wall.monotonic() + 30
    while sim.time() < 1000.0 and wall.monotonic() < limit:
        wall.sleep(0.001)
    with pytest.raises(WrongStateError, match="`run` is in progress"):
        sim.step()
    assert sim.read("power/bus_voltage") is not None  # sinks still answer
    assert sim.halt()
    runner.join(timeout=30)
    assert not runner.is_alive()
    (result,) = outcome
    assert result.halted and result.time >= 1000.0
    assert sim.step() > result.time
    assert not sim.halt()


def test_the_bench_is_rebuilt_from_a_configuration(sim: causim_client.Simulator) -> None:
    sim.step_until(500.0)
    assert sim.init(threads=2, initial_soc=0.5, heater_timetable=True) == 0.0
    (battery,) = sim.query("power/battery")
    assert battery["initial_wh"] == pytest.approx(150.0)
    # The heater's timetable switches it on at 10 minutes.
    sim.step_until(620.0)
    loads = {round(s["time_s"], 6): s["load_w"] for s in samples(sim)}
    assert loads[605.0] > loads[595.0] + 20.0


def _random_bytes(rng: random.Random) -> bytes:
    return bytes(rng.randrange(256) for _ in range(rng.randrange(64)))


def test_malformed_messages_leave_the_server_and_bench_intact(
    server: PowerServer, sim: causim_client.Simulator
) -> None:
    sim.step_until(300.0)
    before = (sim.time(), sim.query("power/ledger"), sim.read("power/telemetry"))
    rng = random.Random(18)
    codes = set()
    with grpc.insecure_channel(server.address) as channel:
        # Calls whose random request cannot change the bench unless it
        # decodes to a valid endpoint and payload.
        for method in ["ProcessEvent", "ProcessQuery", "Latest", "Time", "ListEndpoints", "Subscribe"]:
            path = f"/causim.remote.v1.Simulator/{method}"
            call = (
                channel.unary_stream(path) if method == "Subscribe" else channel.unary_unary(path)
            )
            for _ in range(50):
                try:
                    reply = call(_random_bytes(rng), timeout=10)
                    if method == "Subscribe":
                        # Its status comes with the first message or the
                        # end: wait for one, briefly.
                        try:
                            next(iter(reply))
                        except StopIteration:
                            pass
                        finally:
                            reply.cancel()
                except grpc.RpcError as error:
                    codes.add(error.code())
    # Random bytes are refused with a client error, never anything else
    # (and some are refused: the set is not empty).
    assert codes and codes <= {
        grpc.StatusCode.INTERNAL,  # undecodable protobuf
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.CANCELLED,
    }, codes
    assert server.alive()
    assert (sim.time(), sim.query("power/ledger"), sim.read("power/telemetry")) == before
    assert sim.step_until(400.0) == 400.0


def test_a_token_is_required_when_set() -> None:
    guarded = PowerServer("--token", "s3cret")
    try:
        with causim_client.connect(guarded.address) as anonymous:
            with pytest.raises(AuthenticationError):
                anonymous.time()
        with causim_client.connect(guarded.address, token="guess") as wrong:
            with pytest.raises(AuthenticationError, match="wrong token"):
                wrong.step()
        with causim_client.connect(guarded.address, token="s3cret") as right:
            assert right.step() == 5.0
    finally:
        guarded.stop()


def test_tls_serves_a_client_that_trusts_the_certificate() -> None:
    tls = REPO / "server" / "tests" / "remote" / "tls"
    guarded = PowerServer(
        "--tls-cert", str(tls / "server.pem"), "--tls-key", str(tls / "server.key")
    )
    try:
        trusted = (tls / "ca.pem").read_bytes()
        with causim_client.connect(guarded.address, root_certificates=trusted) as sim:
            assert sim.step() == 5.0
        with pytest.raises(ConnectionError):
            causim_client.connect(guarded.address, wait=2.0)  # plain text: no answer
    finally:
        guarded.stop()


def test_other_interfaces_are_refused_without_permission_and_token() -> None:
    refused = subprocess.run(
        [str(server_binary()), "--listen", "0.0.0.0:0", "--no-init"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert refused.returncode != 0
    assert "not a loopback address" in refused.stderr
    refused = subprocess.run(
        [str(server_binary()), "--listen", "0.0.0.0:0", "--allow-remote", "--no-init"],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert refused.returncode != 0
    assert "without a token" in refused.stderr


def test_times_and_payloads_json_cannot_carry_are_refused_locally(sim: causim_client.Simulator) -> None:
    before = sim.time()
    for bad in (float("nan"), float("inf"), -1.0, 1e300):
        with pytest.raises(ValueError):
            sim.step_until(bad)
    with pytest.raises(ValueError):
        sim.send("power/heater_on", float("nan"))
    assert sim.time() == before
