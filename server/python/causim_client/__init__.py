"""Drive a causim simulation bench served by ``causim-server``.

A bench served remotely names its endpoints: events it takes
(``"power/heater_on"``), queries it answers (``"power/ledger"``) and sinks
it fills (``"power/bus_voltage"``). Payloads, replies and sink values are
plain Python values, sent as JSON; each endpoint's JSON Schema is in
:meth:`Simulator.endpoints`. Times are seconds of simulated time (floats;
the server counts whole nanoseconds).

>>> import causim_client
>>> sim = causim_client.connect("127.0.0.1:50051")      # doctest: +SKIP
>>> sim.step_until(600.0)                               # doctest: +SKIP
600.0
>>> sim.send("power/heater_on", True)                   # doctest: +SKIP
>>> sim.read("power/bus_voltage").value                 # doctest: +SKIP
31.9

Every call raises a :class:`CausimError` subclass when the server refuses
it, with causim's own message; a refused call changes nothing.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

import grpc

from causim_client._proto import causim_pb2 as pb
from causim_client._proto import causim_pb2_grpc as pb_grpc

__all__ = [
    "connect",
    "Simulator",
    "Endpoint",
    "SinkValue",
    "Drained",
    "RunResult",
    "Subscription",
    "CausimError",
    "UnknownEndpointError",
    "InvalidRequestError",
    "WrongStateError",
    "SimulationStoppedError",
    "AuthenticationError",
    "NotAvailableError",
    "ValuesLostError",
]

#: Seconds a call may take unless told otherwise (``run`` has no limit).
DEFAULT_TIMEOUT = 30.0

_NANOS = 1_000_000_000

#: The largest message the client takes or sends (snapshots, drained
#: sinks): 64 MiB, as the server.
MAX_MESSAGE = 64 * 1024 * 1024

_CHANNEL_OPTIONS = [
    ("grpc.max_receive_message_length", MAX_MESSAGE),
    ("grpc.max_send_message_length", MAX_MESSAGE),
]


class CausimError(Exception):
    """The server refused a call; ``code`` is the gRPC status code and
    ``message`` causim's explanation."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message


class UnknownEndpointError(CausimError):
    """No endpoint of that name and kind (the message lists the bench's)."""


class InvalidRequestError(CausimError):
    """A payload that is not JSON of the endpoint's type, a time in the
    past, an endpoint of another kind, a configuration the bench refuses."""


class WrongStateError(CausimError):
    """No bench built yet, or another call (a run) holds the simulation."""


class SimulationStoppedError(CausimError):
    """A step ended by a halt, or by a fatal error (deadlock, model panic,
    timeout) after which the bench must be rebuilt with :meth:`Simulator.init`."""


class AuthenticationError(CausimError):
    """Missing or wrong token."""


class NotAvailableError(CausimError):
    """A call this server does not offer (save and restore, on a server
    built without snapshots)."""


class ValuesLostError(CausimError):
    """A subscription fell too far behind its sink and lost values (the
    message says how many); the subscription has ended."""


_ERRORS = {
    grpc.StatusCode.DATA_LOSS: ValuesLostError,
    grpc.StatusCode.NOT_FOUND: UnknownEndpointError,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidRequestError,
    grpc.StatusCode.FAILED_PRECONDITION: WrongStateError,
    grpc.StatusCode.ABORTED: SimulationStoppedError,
    grpc.StatusCode.UNAUTHENTICATED: AuthenticationError,
    grpc.StatusCode.UNIMPLEMENTED: NotAvailableError,
}


def _error(error: grpc.RpcError) -> CausimError:
    """The :class:`CausimError` of a failed call."""
    code = error.code()  # type: ignore[attr-defined]
    message = error.details() or ""  # type: ignore[attr-defined]
    return _ERRORS.get(code, CausimError)(code, message)


@dataclass(frozen=True)
class Endpoint:
    """A named endpoint of the bench."""

    #: The name calls use, e.g. ``"power/heater_on"``.
    name: str
    #: ``"event"``, ``"query"`` or ``"sink"``.
    kind: str
    #: What it does, from the bench.
    description: str
    #: The Rust type of the payload (event), request (query) or value (sink).
    payload_type: str
    #: Its JSON Schema.
    payload_schema: Dict[str, Any]
    #: For a query: the Rust type of one reply, and its JSON Schema.
    reply_type: Optional[str] = None
    reply_schema: Optional[Dict[str, Any]] = None


@dataclass(frozen=True)
class SinkValue:
    """A value a sink received, and when."""

    #: Simulated time of the send, in seconds.
    time: float
    #: The value, decoded from JSON.
    value: Any
    #: The same time in whole nanoseconds.
    time_ns: int


class Drained(List[SinkValue]):
    """The values :meth:`Simulator.drain` took, oldest first (a list), and
    ``dropped``: how many the sink's buffer had to drop since the last
    drain because it was full (it keeps the newest)."""

    def __init__(self, values: List[SinkValue], dropped: int) -> None:
        super().__init__(values)
        self.dropped = dropped


@dataclass(frozen=True)
class RunResult:
    """How :meth:`Simulator.run` ended."""

    #: The simulated time at the end, in seconds.
    time: float
    #: True if :meth:`Simulator.halt` ended it; false if nothing was left.
    halted: bool


_KINDS = {
    pb.ENDPOINT_KIND_EVENT: "event",
    pb.ENDPOINT_KIND_QUERY: "query",
    pb.ENDPOINT_KIND_SINK: "sink",
}


def _seconds(time_ns: int) -> float:
    return time_ns / _NANOS


#: The latest time the protocol carries: 2^64 - 1 nanoseconds.
_MAX_NANOS = 2**64 - 1


def _nanos(seconds: float, what: str) -> int:
    """Seconds as whole nanoseconds; negative, infinite, NaN and too large
    times are refused here, with the argument's name."""
    if not math.isfinite(seconds):
        raise ValueError(f"{what} must be a finite number of seconds, got {seconds}")
    if seconds < 0:
        raise ValueError(f"{what} must not be negative, got {seconds}")
    nanos = seconds * _NANOS
    if nanos > _MAX_NANOS:
        raise ValueError(f"{what} is past the latest simulation time (about 584 years), got {seconds}")
    return int(round(nanos))


def _json(value: Any) -> str:
    """`value` as strict JSON: NaN and infinities, which JSON has not, are
    refused here rather than by the server."""
    return json.dumps(value, allow_nan=False)


def _sink_value(value: "pb.SinkValue") -> SinkValue:
    return SinkValue(
        time=_seconds(value.time_ns),
        value=json.loads(value.value_json),
        time_ns=value.time_ns,
    )


class Subscription:
    """The values a sink receives from the moment of subscribing, as they
    come: iterate over it; :meth:`cancel` (or leaving a ``with`` block)
    ends it. It also ends when the bench is rebuilt."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __iter__(self) -> Iterator[SinkValue]:
        try:
            for batch in self._stream:
                for value in batch.values:
                    yield _sink_value(value)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:  # type: ignore[attr-defined]
                raise _error(error) from None

    def cancel(self) -> None:
        """Ends the subscription."""
        self._stream.cancel()

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *_: object) -> None:
        self.cancel()


class Simulator:
    """A connection to one served bench. Use :func:`connect` to make one.

    Calls are synchronous. The simulation serves one call at a time: a call
    made while another holds it (a :meth:`run` from another thread, say)
    raises :class:`WrongStateError` at once; :meth:`time`, :meth:`read`,
    :meth:`drain`, :meth:`subscribe`, :meth:`schedule` and :meth:`halt` are
    answered during a run too.
    """

    def __init__(
        self,
        channel: grpc.Channel,
        *,
        token: Optional[str] = None,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
    ) -> None:
        self._channel = channel
        self._stub = pb_grpc.SimulatorStub(channel)
        self._metadata: Tuple[Tuple[str, str], ...] = (
            (("authorization", f"Bearer {token}"),) if token is not None else ()
        )
        self._timeout = timeout

    def _call(self, method: str, request: Any, timeout: Optional[float] = None) -> Any:
        try:
            return getattr(self._stub, method)(
                request,
                timeout=self._timeout if timeout is None else timeout,
                metadata=self._metadata,
            )
        except grpc.RpcError as error:
            raise _error(error) from None

    # The bench.

    def init(self, config: Optional[Mapping[str, Any]] = None, **fields: Any) -> float:
        """Builds (or rebuilds) the bench from ``config`` (and/or keyword
        fields; none: the bench's defaults) and returns the start time."""
        merged = dict(config or {}, **fields)
        text = _json(merged) if merged else ""
        return _seconds(self._call("Init", pb.InitRequest(config_json=text)).time_ns)

    def endpoints(self) -> Dict[str, Endpoint]:
        """The bench's endpoints by name (empty before :meth:`init`)."""
        reply = self._call("ListEndpoints", pb.ListEndpointsRequest())
        return {e.name: self._endpoint(e) for e in reply.endpoints}

    def config_schema(self) -> Dict[str, Any]:
        """The JSON Schema of the configuration :meth:`init` takes."""
        reply = self._call("ListEndpoints", pb.ListEndpointsRequest())
        return json.loads(reply.config_schema)

    @staticmethod
    def _endpoint(e: "pb.Endpoint") -> Endpoint:
        return Endpoint(
            name=e.name,
            kind=_KINDS.get(e.kind, "unknown"),
            description=e.description,
            payload_type=e.payload_type,
            payload_schema=json.loads(e.payload_schema),
            reply_type=e.reply_type or None,
            reply_schema=json.loads(e.reply_schema) if e.reply_schema else None,
        )

    # Time.

    def time(self) -> float:
        """The current simulated time, in seconds."""
        return _seconds(self._call("Time", pb.TimeRequest()).time_ns)

    def step(self) -> float:
        """Processes the next time step; returns the time."""
        return _seconds(self._call("Step", pb.StepRequest()).time_ns)

    def step_until(self, time: float, *, timeout: Optional[float] = None) -> float:
        """Processes every time step up to ``time`` (seconds), then sets
        the clock to it; returns it."""
        deadline = pb.Deadline(at_ns=_nanos(time, "time"))
        request = pb.StepUntilRequest(deadline=deadline)
        return _seconds(self._call("StepUntil", request, timeout).time_ns)

    def step_by(self, duration: float, *, timeout: Optional[float] = None) -> float:
        """Processes every time step in the next ``duration`` seconds;
        returns the time."""
        deadline = pb.Deadline(after_ns=_nanos(duration, "duration"))
        request = pb.StepUntilRequest(deadline=deadline)
        return _seconds(self._call("StepUntil", request, timeout).time_ns)

    def run(self, *, timeout: Optional[float] = None) -> RunResult:
        """Processes time steps until nothing is scheduled or another
        thread calls :meth:`halt`. No time limit unless ``timeout``."""
        try:
            reply = self._stub.Run(pb.RunRequest(), timeout=timeout, metadata=self._metadata)
        except grpc.RpcError as error:
            raise _error(error) from None
        return RunResult(time=_seconds(reply.time_ns), halted=reply.halted)

    def halt(self) -> bool:
        """Stops a run or step in progress after its current time step;
        returns whether one was in progress."""
        return self._call("Halt", pb.HaltRequest()).was_running

    # Events and queries.

    def send(self, endpoint: str, payload: Any = None) -> float:
        """Delivers ``payload`` to event endpoint ``endpoint`` now and
        processes what it causes; returns the time."""
        request = pb.ProcessEventRequest(endpoint=endpoint, payload_json=_json(payload))
        return _seconds(self._call("ProcessEvent", request).time_ns)

    def query(self, endpoint: str, request: Any = None) -> List[Any]:
        """Sends ``request`` to query endpoint ``endpoint`` now; returns
        the replies, one per connection of the endpoint."""
        message = pb.ProcessQueryRequest(endpoint=endpoint, request_json=_json(request))
        return json.loads(self._call("ProcessQuery", message).replies_json)

    def schedule(
        self,
        endpoint: str,
        payload: Any = None,
        *,
        at: Optional[float] = None,
        after: Optional[float] = None,
    ) -> None:
        """Schedules ``payload`` for event endpoint ``endpoint`` at time
        ``at`` or ``after`` seconds from now (one of the two)."""
        if (at is None) == (after is None):
            raise ValueError("give exactly one of `at` and `after`")
        deadline = (
            pb.Deadline(at_ns=_nanos(at, "at"))
            if at is not None
            else pb.Deadline(after_ns=_nanos(after, "after"))  # type: ignore[arg-type]
        )
        request = pb.ScheduleRequest(
            endpoint=endpoint, payload_json=_json(payload), deadline=deadline
        )
        self._call("Schedule", request)

    # Sinks.

    def read(self, sink: str) -> Optional[SinkValue]:
        """The latest value sink ``sink`` received (``None`` if none yet),
        without taking it."""
        reply = self._call("Latest", pb.SinkRequest(endpoint=sink))
        return _sink_value(reply.value) if reply.HasField("value") else None

    def drain(self, sink: str) -> Drained:
        """Takes every value sink ``sink`` holds, oldest first (a list,
        with the count of values dropped since the last drain in
        ``.dropped``). A reply carries at most about 3 MiB of values; this
        asks again while the server says more are held."""
        values: List[SinkValue] = []
        dropped = 0
        while True:
            reply = self._call("Drain", pb.SinkRequest(endpoint=sink))
            values.extend(_sink_value(v) for v in reply.values)
            dropped += reply.dropped
            if not reply.more:
                return Drained(values, dropped)

    def subscribe(self, sink: str) -> Subscription:
        """Every value sink ``sink`` receives from now on, as it comes:
        returns once the server has the subscription in place (its first,
        empty message), so that nothing sent after this call is missed."""
        stream = self._stub.Subscribe(pb.SinkRequest(endpoint=sink), metadata=self._metadata)
        try:
            next(stream)
        except StopIteration:
            pass
        except grpc.RpcError as error:
            raise _error(error) from None
        return Subscription(stream)

    # Snapshots.

    def save(self) -> bytes:
        """A snapshot of the bench, to :meth:`restore` later. Raises
        :class:`WrongStateError` naming the model if one cannot be saved,
        :class:`NotAvailableError` if the server was built without
        snapshots."""
        return self._call("Save", pb.SaveRequest(), self._long()).snapshot

    def restore(
        self, snapshot: bytes, config: Optional[Mapping[str, Any]] = None, **fields: Any
    ) -> float:
        """Builds the bench again (from ``config`` and/or keyword fields;
        none: the current bench's configuration) and restores ``snapshot``
        into it; returns the restored time. A snapshot that does not fit
        raises :class:`InvalidRequestError` and the current bench stays."""
        merged = dict(config or {}, **fields)
        text = _json(merged) if merged else ""
        request = pb.RestoreRequest(snapshot=snapshot, config_json=text)
        return _seconds(self._call("Restore", request, self._long()).time_ns)

    def _long(self) -> Optional[float]:
        """The deadline of a call that may take long: the default one."""
        return self._timeout

    # The connection.

    def close(self) -> None:
        """Closes the connection."""
        self._channel.close()

    def __enter__(self) -> "Simulator":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def connect(
    address: str = "127.0.0.1:50051",
    *,
    token: Optional[str] = None,
    root_certificates: Optional[bytes] = None,
    timeout: Optional[float] = DEFAULT_TIMEOUT,
    wait: float = 10.0,
) -> Simulator:
    """Connects to the server at ``address`` (``host:port``).

    ``token``: the server's token, if it has one. ``root_certificates``:
    PEM certificates to trust for a TLS server (TLS is used only if given).
    ``timeout``: the default limit of each call, in seconds. ``wait``: how
    long to wait for the server to accept the connection.
    """
    if root_certificates is not None:
        credentials = grpc.ssl_channel_credentials(root_certificates=root_certificates)
        channel = grpc.secure_channel(address, credentials, options=_CHANNEL_OPTIONS)
    else:
        channel = grpc.insecure_channel(address, options=_CHANNEL_OPTIONS)
    try:
        grpc.channel_ready_future(channel).result(timeout=wait)
    except grpc.FutureTimeoutError:
        channel.close()
        raise ConnectionError(f"no causim server answered at {address} within {wait} s") from None
    return Simulator(channel, token=token, timeout=timeout)
