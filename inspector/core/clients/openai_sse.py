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
- The SDK re-decodes the body's bytes itself (this module does too, from ``Exchange.body``;
  the inspector's events are only where each result is pinned). Lines split at CR, LF, CRLF;
  each line is decoded as UTF-8 on its own, so invalid UTF-8 raises ``UnicodeDecodeError``
  when its line completes (pinned to the inspector's ERROR event for that line). No BOM is
  stripped (a first line ``\\ufeffdata: …`` is an unknown field). Comments are ignored.
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

Invariants:
- :func:`sdk_items` is the SDK's whole output for an exchange, in order: chunks, then at most
  one raise, which ends it. Each item is pinned to the ``seq`` of the inspector event whose
  end the SDK had read when it yielded or raised (the last event ending at or before that
  byte; an undecodable line's own ERROR event); pins never decrease.
- Without body bytes (``Exchange.body`` empty) the items are rebuilt from the inspector's
  events: what only the bytes show (blocks with no data, a BOM, a last event without its
  blank line) is then not modelled.
"""

from __future__ import annotations

import json
import re
from abc import abstractmethod
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, Final

from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.clients.base import ClientRaised, Exchange, HandedCall, ReplicaRun

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
_LINE_END: Final = re.compile(b"\r\n|\r|\n")


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


# -- the SDK's SSE decoding -----------------------------------------------------------------


@dataclass
class _Block:
    event: str | None = None
    data: list[str] | None = None
    retry: int | None = None


@dataclass(frozen=True)
class _Dispatch:
    end: int
    """One past the blank line that dispatched it."""
    event: str | None
    data: str


@dataclass(frozen=True)
class _BadLine:
    start: int
    end: int
    raw: bytes


def _sse_events(body: bytes, cut: bool) -> Iterator[_Dispatch | _BadLine]:
    """The SDK's dispatched events; an undecodable line ends them (the SDK raises there).
    ``cut``: the body ended early, so the SDK never decodes a last line without its end."""
    block = _Block()
    last_id: str | None = None
    pos = 0
    for match in _LINE_END.finditer(body):
        raw = body[pos : match.start()]
        start, pos = pos, match.end()
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            yield _BadLine(start, pos, raw)
            return
        if not line:
            if block.event or block.data or last_id or block.retry is not None:
                yield _Dispatch(pos, block.event or None, "\n".join(block.data or []))
            block = _Block()
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            block.event = value
        elif name == "data":
            block.data = [*(block.data or []), value]
        elif name == "id" and "\0" not in value:
            last_id = value
        elif name == "retry":
            with suppress(ValueError):
                block.retry = int(value)
    tail = body[pos:]
    if tail and not cut:  # the SDK decodes the last line (it may raise), never dispatches it
        try:
            tail.decode("utf-8")
        except UnicodeDecodeError:
            yield _BadLine(pos, len(body), tail)


def _from_events(events: Sequence[SSEEvent]) -> Iterator[tuple[int, Any, Any]]:
    """Without bytes: ``(seq, event, data)`` per inspector EVENT, ``(seq, None, exc)`` per
    ERROR (a UnicodeDecodeError worded from the inspector's reason)."""
    for ev in events:
        if ev.kind == EventKind.EVENT:
            yield (ev.seq, None if ev.event == "message" else ev.event, ev.data)
        elif ev.kind == EventKind.ERROR:
            yield (ev.seq, None, ClientRaised("UnicodeDecodeError", ev.data))
            return


def _one(event: str | None, data: str) -> tuple[Any, ClientRaised | None, bool]:
    """What the SDK's ``__stream__`` does with one dispatched event: (chunk, raise, done)."""
    if data.startswith("[DONE]"):
        return None, None, True
    try:
        value = json.loads(data)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError; a number past int's limit
        return None, ClientRaised(type(exc).__name__, str(exc)), False
    if event is not None and event.startswith("thread."):
        return {"data": value, "event": event}, None, False
    if isinstance(value, dict) and value.get("error"):
        error = value["error"]
        message = error.get("message") if isinstance(error, dict) else None
        if not isinstance(message, str) or not message:
            message = _STREAM_ERROR
        return None, ClientRaised("APIError", message), False
    return value, None, False


def sdk_items(exchange: Exchange) -> list[SdkItem]:
    """Everything the SDK's stream yields for ``exchange`` (see the module's invariants);
    the status error, when there is one, is the only item (pinned to -1)."""
    raised = status_error(exchange)
    if raised is not None:
        return [SdkItem(-1, raised=raised)]
    events = exchange.events
    if not exchange.body and events:
        return _items_from_events(exchange)
    pins = _Pins(events)
    out: list[SdkItem] = []
    for found in _sse_events(exchange.body, exchange.transport_error is not None):
        if isinstance(found, _BadLine):
            out.append(SdkItem(pins.bad_line(found.start, found.end), raised=_utf8(found.raw)))
            return out
        chunk, fail, done = _one(found.event, found.data)
        if done:
            return out
        out.append(SdkItem(pins.at(found.end), chunk, fail))
        if fail is not None:
            return out
    fail = transport_raise(exchange)
    if fail is not None:
        out.append(SdkItem(events[-1].seq if events else -1, raised=fail))
    return out


class _Pins:
    """Pins byte offsets to inspector events, never decreasing."""

    def __init__(self, events: Sequence[SSEEvent]) -> None:
        self.events = events
        self.ends = [ev.end for ev in events]
        self.floor = -1

    def at(self, offset: int) -> int:
        """The last event ending at or before ``offset``."""
        k = bisect_right(self.ends, offset) - 1
        self.floor = max(self.floor, self.events[k].seq if k >= 0 else -1)
        return self.floor

    def bad_line(self, start: int, end: int) -> int:
        """The inspector's ERROR event for the undecodable line ``[start, end)``."""
        for ev in self.events[bisect_right(self.ends, start) :]:
            if ev.kind == EventKind.ERROR and start <= ev.start < end:
                self.floor = max(self.floor, ev.seq)
                return self.floor
        return self.at(end)


def _items_from_events(exchange: Exchange) -> list[SdkItem]:
    out: list[SdkItem] = []
    for seq, event, data in _from_events(exchange.events):
        if isinstance(data, ClientRaised):
            return [*out, SdkItem(seq, raised=data)]
        chunk, fail, done = _one(event, data)
        if done:
            return out
        out.append(SdkItem(seq, chunk, fail))
        if fail is not None:
            return out
    fail = transport_raise(exchange)
    if fail is not None:
        out.append(SdkItem(exchange.events[-1].seq, raised=fail))
    return out


def _utf8(raw: bytes) -> ClientRaised:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ClientRaised("UnicodeDecodeError", str(exc))
    raise AssertionError("decodable line")  # pragma: no cover - callers pass bad lines


# -- a replica run over the SDK's chunks -----------------------------------------------------


@contextmanager
def library_errors() -> Iterator[None]:
    """Python's own exceptions, met while a replica runs the library's logic on the values
    received (``str += int``, ``None.index``, an index past ``ssize_t``), become what the
    library raises there: :class:`ClientRaised` with the class name and message."""
    try:
        yield
    except ClientRaised:
        raise
    except Exception as exc:
        raise ClientRaised(type(exc).__name__, str(exc)) from None


class SdkChunkRun(ReplicaRun):
    """A :class:`ReplicaRun` fed the openai SDK's chunks instead of wire events.

    Subclasses implement :meth:`chunk` (one chunk's JSON value, as the SDK yields it) and
    :meth:`handed` (the calls at the end); either may raise :class:`ClientRaised`, and any
    other exception out of them is the library's own (:func:`library_errors`). The status
    error raises from the constructor, so ``Replica.open`` raises it as the SDK does.
    """

    def __init__(self, exchange: Exchange) -> None:
        super().__init__()
        self._items = sdk_items(exchange)
        self._next = 0
        first = self._items[0] if self._items else None
        if first is not None and first.seq < 0 and first.raised is not None:
            raise first.raised

    def feed(self, event: SSEEvent) -> None:
        items = self._items
        while self._next < len(items) and items[self._next].seq <= event.seq:
            item = items[self._next]
            self._next += 1
            if item.raised is not None:
                raise item.raised
            with library_errors():
                self.chunk(item.data)

    def finish(self) -> list[HandedCall]:
        while self._next < len(self._items):
            item = self._items[self._next]
            self._next += 1
            if item.raised is not None:
                raise item.raised
            with library_errors():
                self.chunk(item.data)
        with library_errors():
            return self.handed()

    @abstractmethod
    def chunk(self, data: Any) -> None:
        """One chunk as the SDK yields it (a dict for a well-formed chunk)."""

    @abstractmethod
    def handed(self) -> list[HandedCall]:
        """The stream ended without a raise: the calls handed to the agent."""
