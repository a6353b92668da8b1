"""The openai SDK's own SSE layer: which chunks ``client.chat.completions.create(stream=True)``
(and ``client.responses.create(stream=True)``) yield for a body, and where it raises.

Follows openai 3.57.0: ``openai/_streaming.py`` (``SSEDecoder``, ``_SSELineDecoder``,
``AsyncStream.__stream__``), ``openai/_base_client.py`` (``_make_status_error_from_response``)
and ``openai/_client.py`` (``_make_status_error``). Every client that reads the openai SDK's
chunks (openai-python's own accumulators, LiteLLM, LangChain, hand-written loops) builds on
:class:`SdkChunkRun`.

What the SDK does, modelled here:
- A status that is not 2xx raises before the body is read: ``BadRequestError`` (400),
  ``AuthenticationError`` (401), ``PermissionDeniedError`` (403), ``NotFoundError`` (404),
  ``ConflictError`` (409), ``UnprocessableEntityError`` (422), ``RateLimitError`` (429),
  ``InternalServerError`` (>= 500), else ``APIStatusError``; message
  ``Error code: N`` plus `` - <error.message>`` when the body is JSON holding one. No response
  at all (status 0) is ``APIConnectionError: Connection error.``.
- The content type is never looked at: any body is decoded as SSE.
- The SDK re-decodes the body's bytes itself (so does :mod:`.wire`, once per exchange
  for every replica; the inspector's events are only where each result is pinned). Lines
  split at CR, LF, CRLF; each line is decoded as UTF-8 on its own, so invalid UTF-8 raises
  ``UnicodeDecodeError`` when its line completes (pinned to the inspector's ERROR event for
  that line). No BOM is stripped (a first line ``\\ufeffdata: …`` is an unknown field).
  Comments are ignored.
- A blank line dispatches when an event type, data, a retry, *or a last event id* is set:
  once an ``id:`` was seen, every further blank line dispatches, with empty data. A final
  event without its blank line is never dispatched.
- Per dispatched event: data starting with ``[DONE]`` ends the stream (nothing after it is
  read, a later reset included); otherwise ``json.loads(data)`` (stdlib: ``JSONDecodeError``
  on ``: OPENROUTER PROCESSING`` or empty data); a JSON object whose ``error`` is truthy
  raises ``APIError`` with ``error.message`` (or ``An error occurred during streaming``). An
  event named ``thread.…`` yields ``{"data": …, "event": …}``. JSON ``null`` yields None.
- A body cut short (``Exchange.transport_error``) raises ``APIConnectionError: Connection
  error.`` (``APITimeoutError: Request timed out.`` for a timeout) after the last whole event,
  unless ``[DONE]`` came first.
- A chunk's models are built without validation: every replica reads them with :func:`attr`
  (a JSON object's field, None when absent; any other value's own Python attribute).

Invariants:
- :func:`sdk_items` is the SDK's whole output for an exchange, in order: chunks, then at most
  one raise, which ends it. Each item is pinned to the ``seq`` of the inspector event whose
  end the SDK had read when it yielded or raised (the last event ending at or before that
  byte; an undecodable line's own ERROR event); pins never decrease.
- Without body bytes (``Exchange.body`` empty) the items are rebuilt from the inspector's
  events: what only the bytes show (blocks with no data, a BOM, a last event without its
  blank line) is then not modelled.
- :class:`SdkChunkRun` decodes each chunk when the driver reaches its pin: the same chunks
  and raises, at the same events, as :func:`sdk_items` lists.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from inspector.core.base.model import SSEEvent
from inspector.core.clients.base import ClientRaised, Exchange, HandedCall, ReplicaRun
from inspector.core.clients.openai_sdk.wire import Dispatches, dispatches

VERSION: Final = "3.57.0"
"""The openai SDK version this layer follows."""

_STATUS_CLASSES: Final = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    409: "ConflictError",
    422: "UnprocessableEntityError",
    429: "RateLimitError",
}
_STREAM_ERROR: Final = "An error occurred during streaming"


def attr(obj: Any, name: str) -> Any:
    """``obj.name`` on a model the SDK built without validation: a JSON object's field (None
    when absent); on any other value Python's own attribute (``"x".index`` is a method,
    ``None.index`` an AttributeError)."""
    try:  # of the values read here (JSON values, Pieces) only a dict has ``get``
        return obj.get(name)
    except AttributeError:
        return getattr(obj, name)


@dataclass(frozen=True)
class SdkItem:
    """One thing the SDK's stream does: yield ``data`` (a chunk's JSON value) or raise."""

    seq: int
    """The inspector event it is pinned to (-1: before any event)."""
    data: Any = None
    raised: ClientRaised | None = None


def status_error(exchange: Exchange) -> ClientRaised | None:
    """What the SDK raises before reading the body, or None for a 2xx response."""
    status = exchange.status
    if status == 0:
        return ClientRaised("APIConnectionError", "Connection error.")
    if 200 <= status < 300:
        return None
    name = "InternalServerError" if status >= 500 else _STATUS_CLASSES.get(status, "APIStatusError")
    message = f"Error code: {status}"
    text = exchange.body.decode("utf-8", "replace").strip()
    try:
        body = json.loads(text)
    except ValueError:
        return ClientRaised(name, message)
    error = body.get("error", body) if isinstance(body, dict) else None
    detail = error.get("message") if isinstance(error, dict) else None
    if isinstance(detail, str) and detail:
        message += f" - {detail}"
    return ClientRaised(name, message)


def transport_raise(exchange: Exchange) -> ClientRaised | None:
    """What the SDK raises when the body ends early (None for a clean end)."""
    why = exchange.transport_error
    if why is None:
        return None
    if "timed out" in why.lower() or "timeout" in why.lower():
        return ClientRaised("APITimeoutError", "Request timed out.")
    return ClientRaised("APIConnectionError", "Connection error.")


def _one(wire: Dispatches, i: int) -> tuple[Any, ClientRaised | None]:
    """What the SDK's ``__stream__`` does with the ``i``-th dispatched event (not
    ``[DONE]``): (chunk, raise)."""
    event = wire.name(i)
    try:
        value = wire.value(i)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError; a number past int's limit
        return None, ClientRaised(type(exc).__name__, str(exc))
    if event is not None and event.startswith("thread."):
        return {"data": value, "event": event}, None
    if isinstance(value, dict) and value.get("error"):
        error = value["error"]
        message = error.get("message") if isinstance(error, dict) else None
        if not isinstance(message, str) or not message:
            message = _STREAM_ERROR
        return None, ClientRaised("APIError", message)
    return value, None


def sdk_items(exchange: Exchange) -> list[SdkItem]:
    """Everything the SDK's stream yields for ``exchange`` (see the module's invariants);
    the status error, when there is one, is the only item (pinned to -1)."""
    raised = status_error(exchange)
    if raised is not None:
        return [SdkItem(-1, raised=raised)]
    wire = dispatches(exchange)
    out: list[SdkItem] = []
    for i, seq in enumerate(wire.seqs):
        chunk, fail = _one(wire, i)
        out.append(SdkItem(seq, chunk, fail))
        if fail is not None:
            return out
    last = _last(wire, exchange)
    return out if last is None else [*out, SdkItem(last[0], raised=last[1])]


def _last(wire: Dispatches, exchange: Exchange) -> tuple[int, ClientRaised] | None:
    """What the SDK raises after the last dispatch, and where: an undecodable line, else a
    body cut short (unless ``[DONE]`` came first)."""
    if wire.end is not None or wire.done:
        return wire.end
    fail = transport_raise(exchange)
    events = exchange.events
    return None if fail is None else (events[-1].seq if events else -1, fail)


# -- a replica run over the SDK's chunks -----------------------------------------------------


def _copy(raised: ClientRaised) -> ClientRaised:
    """A shared raise, raised afresh (each run gets its own exception object)."""
    return ClientRaised(raised.type, raised.message)


def library_error(exc: Exception) -> ClientRaised:
    """Python's own exception, met while a replica runs the library's logic on the values
    received (``str += int``, ``None.index``, an index past ``ssize_t``), as what the library
    raises there: its class name and message."""
    return ClientRaised(type(exc).__name__, str(exc))


class SdkChunkRun(ReplicaRun):
    """A :class:`ReplicaRun` fed the openai SDK's chunks instead of wire events.

    Subclasses implement :meth:`chunk` (one chunk's JSON value, as the SDK yields it) and
    :meth:`handed` (the calls at the end); either may raise :class:`ClientRaised`, and any
    other exception out of them is the library's own (:func:`library_error`). The status
    error raises from the constructor, so ``Replica.open`` raises it as the SDK does.
    """

    def __init__(self, exchange: Exchange) -> None:
        super().__init__()
        raised = status_error(exchange)
        if raised is not None:
            raise raised
        wire = dispatches(exchange)
        self._sdk_wire, self._sdk_seqs = wire, wire.seqs
        self._sdk_next = 0
        self._sdk_last = _last(wire, exchange)
        first = self._sdk_first()
        if first is not None:  # the SDK's first item is a raise before any event
            raise first

    def _sdk_first(self) -> ClientRaised | None:
        if self._sdk_seqs:
            wire = self._sdk_wire
            return _one(wire, 0)[1] if self._sdk_seqs[0] < 0 else None
        last = self._sdk_last
        return _copy(last[1]) if last is not None and last[0] < 0 else None

    def feed(self, event: SSEEvent) -> None:
        seqs, at, i = self._sdk_seqs, event.seq, self._sdk_next
        count = len(seqs)
        while i < count and seqs[i] <= at:
            self._sdk_next = i + 1
            self._sdk_read(i)
            i += 1
        last = self._sdk_last
        if last is not None and i == count and last[0] <= at:
            raise _copy(last[1])

    def relevant(self, events: Sequence[SSEEvent]) -> Iterable[SSEEvent]:
        """Only the events a dispatch or the SDK's last raise is pinned to (each once; a pin
        before the first event is the first event): at any other, :meth:`feed` does
        nothing. Every event when they are not numbered by position."""
        last = self._sdk_last
        return self._sdk_wire.pinned(events, last[0] if last else None)

    def finish(self) -> list[HandedCall]:
        while self._sdk_next < len(self._sdk_seqs):
            self._sdk_next += 1
            self._sdk_read(self._sdk_next - 1)
        if self._sdk_last is not None:
            raise _copy(self._sdk_last[1])
        try:
            return self.handed()
        except ClientRaised:
            raise
        except Exception as exc:
            raise library_error(exc) from None

    def _sdk_read(self, i: int) -> None:
        """The ``i``-th dispatch decoded and read, or the SDK's raise there."""
        wire = self._sdk_wire
        if wire.named:
            data, fail = _one(wire, i)
            if fail is not None:
                raise fail
        else:  # no event name, no long number: _one's common case, without its call
            try:
                data = wire.value(i)
            except (ValueError, RecursionError) as exc:
                raise ClientRaised(type(exc).__name__, str(exc)) from None
            if type(data) is dict and data.get("error"):
                raise _one(wire, i)[1]  # type: ignore[misc]
        try:
            self.chunk(data)
        except ClientRaised:
            raise
        except Exception as exc:
            raise library_error(exc) from None

    @abstractmethod
    def chunk(self, data: Any) -> None:
        """One chunk as the SDK yields it (a dict for a well-formed chunk)."""

    @abstractmethod
    def handed(self) -> list[HandedCall]:
        """The stream ended without a raise: the calls handed to the agent."""
