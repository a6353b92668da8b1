"""The ``anthropic-sdk`` replica: what ``client.messages.stream(...)`` then
``get_final_message()`` hands over (the final message's ``tool_use`` blocks).

Follows anthropic 2.15.0: ``anthropic/_streaming.py`` (``SSEDecoder``,
``AsyncStream.__stream__``), ``anthropic/lib/streaming/_messages.py`` (``accumulate_event``,
``MessageStream``), ``anthropic/_error_classes.py`` and ``anthropic/_client.py`` (status
errors).

What the SDK does, modelled here:
- A status that is not 2xx raises before the body is read: the class by status
  (``AuthenticationError`` 401, ``RateLimitError`` 429, ``InternalServerError`` >= 500 …, else
  ``APIStatusError``), the message ``Error code: N - <the body's JSON as a Python repr>``, or
  the body's text when it is not JSON. The content type is never looked at: an HTML page is
  decoded as SSE, yields nothing, and ``get_final_message`` fails its assertion
  (``AssertionError`` with no message). No response at all is ``APIConnectionError``.
- Its SSE decoding (re-read from the body's bytes) is the openai SDK's: per-line UTF-8
  (invalid bytes raise ``UnicodeDecodeError``), comments ignored, a last event without its
  blank line never dispatched. An event with no ``event:`` line, ``event: ping`` and an
  empty ``data`` are skipped; ``event: error`` raises ``APIStatusError`` whose message is
  the data's JSON as a Python repr; any other data is ``json.loads``-ed
  (``JSONDecodeError``).
- Events before ``message_start`` are ignored; a second ``message_start`` changes nothing.
  ``content_block_start`` appends its block whatever its ``index``; a delta or stop looks up
  ``content[index]`` (``IndexError`` past the end). Each ``input_json_delta`` of a
  ``tool_use`` block is appended to that index's buffer, which is re-parsed whole with jiter's
  partial mode (:mod:`.jiter_partial`) and replaces ``input``: an argument cut mid-string is
  silently dropped (``{"city": "Par`` hands over ``{}``); text jiter refuses raises
  ``ValueError: Unable to parse tool parameter JSON from model …``. Fragments of ``""`` keep
  the ``input`` the block started with (``{}``, or the whole object a gateway sent there).
- A body cut short raises httpx2's ``ReadError`` (a reset) or ``ReadTimeout`` after the last
  whole event; ``max_tokens`` mid-arguments is no error: the cut input is handed over.
- Handed over: each ``tool_use`` block's ``id``, ``name`` and ``input`` as compact JSON, keys
  in order, whether it streamed or arrived whole in ``message_start.content`` (programmatic
  calls, with a ``caller``); ``server_tool_use`` and ``mcp_tool_use`` blocks the same way, as
  hosted items (the provider ran them).

Not modelled: the narrower status classes the SDK picks from ``error.details.error_code``
(their parent class is named), and the ``AttributeError``/``TypeError`` wording for events
whose fields have the wrong JSON type (the class is right, the wording approximated).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any, ClassVar, Final

from inspector.core.base.kinds import CallKind
from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.clients.anthropic_sdk.errors import CLASSES as _CLASSES
from inspector.core.clients.anthropic_sdk.errors import cut_raise, status_error
from inspector.core.clients.anthropic_sdk.jiter_partial import JiterError, partial_loads
from inspector.core.clients.base import (
    ClientRaised,
    Exchange,
    HandedCall,
    Partial,
    Replica,
    ReplicaRun,
    as_text,
)
from inspector.core.clients.pins import Pins, lines, pinned, utf8_error
from inspector.core.providers import ANTHROPIC

_PARSE_FAILED: Final = (
    "Unable to parse tool parameter JSON from model. Please retry your request or adjust "
    "your prompt. Error: {error}. JSON: {json}"
)
_TOOL_INPUT: Final = ("tool_use", "server_tool_use")
_HOSTED: Final = ("server_tool_use", "mcp_tool_use")
"""The blocks of the provider's own tools: handed over in the final message like any block,
reported as hosted items (never the agent's calls)."""
_HANDED: Final = ("tool_use", *_HOSTED)
_INT_TEXT: Final = re.compile(r"\s*[+-]?[0-9]+\s*")

Item = tuple[int, str | None, str] | tuple[int, ClientRaised]
"""``(seq, event, data)`` for a dispatched event, ``(seq, raised)`` where decoding raises."""


def sse_items(exchange: Exchange) -> list[Item]:
    """The SDK's SSE events for ``exchange``'s body, each pinned to the inspector event whose
    end it had read; an undecodable line ends the list with its raise. Without body bytes,
    the inspector's own events stand in for them."""
    if not exchange.body:
        return _from_events(exchange.events)
    pins = Pins(exchange.events)
    items: list[Item] = []
    event: str | None = None
    data: list[str] | None = None
    last_id: str | None = None
    retry: int | None = None
    names: dict[str, str] = {}
    for start, end, raw, ended in lines(exchange.body):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            items.append(
                (pins.bad_line(start, end), ClientRaised("UnicodeDecodeError", utf8_error(raw)))
            )
            break
        if not ended:
            break  # a last line without its line end is decoded but never dispatched
        if not line:
            if event or data or last_id or retry is not None:
                items.append((pins.at(end), event or None, "\n".join(data or [])))
            event, data, retry = None, None, None
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            event = names.setdefault(value, value)  # each event name kept once
        elif field == "data":
            data = [*(data or []), value]
        elif field == "id" and "\0" not in value:
            last_id = value
        elif field == "retry":
            with contextlib.suppress(ValueError):
                retry = int(value)
    return items


def _from_events(events: Sequence[SSEEvent]) -> list[Item]:
    out: list[Item] = []
    for ev in events:
        if ev.kind == EventKind.EVENT:
            out.append((ev.seq, None if ev.event == "message" else ev.event, ev.data))
        elif ev.kind == EventKind.ERROR:
            out.append((ev.seq, ClientRaised("UnicodeDecodeError", ev.data)))
            break
    return out


def _no_attr(value: Any, name: str) -> ClientRaised:
    kind = "NoneType" if value is None else type(value).__name__
    return ClientRaised("AttributeError", f"'{kind}' object has no attribute '{name}'")


def _field(obj: dict[str, Any], key: str, attr: str) -> Any:
    """``obj[key]`` where the SDK reads an attribute of it: a dict, else AttributeError."""
    value = obj.get(key)
    if not isinstance(value, dict):
        raise _no_attr(value, attr)
    return value


class _Run(ReplicaRun):
    """One message read as the SDK reads it.

    The SDK re-parses an index's whole buffer after every fragment (quadratic here, where
    jiter is not native). A dry run first finds the buffers that ever fail to parse; only
    those are parsed fragment by fragment (to raise where the SDK raises). Every other block
    is parsed once, at hand-over, from its buffer at its last fragment: a buffer that starts
    a JSON object or array and parses whole never failed on the way (jiter's partial mode
    only raises on text it has seen, so a failure never goes away).
    """

    def __init__(
        self,
        exchange: Exchange,
        eager: frozenset[Any] | None = None,
        items: list[Item] | None = None,
    ) -> None:
        super().__init__()
        self.exchange = exchange
        self.items = sse_items(exchange) if items is None else items
        self.next = 0
        self.content: list[dict[str, Any]] | None = None
        self.slots: list[int | None] = []  # content position -> position in calls
        self.bufs: dict[Any, bytearray] = {}  # appended in place (the SDK's += copies it)
        self.last_buf: dict[int, _Cut] = {}  # content position -> buffer not parsed yet
        self.first_buf: dict[Any, _Cut] = {}  # key -> its first non-empty buffer
        self.eager = _dry_run(exchange, self.items) if eager is None else eager

    def feed(self, event: SSEEvent) -> None:
        while self.next < len(self.items) and self.items[self.next][0] <= event.seq:
            self.step()

    def relevant(self, events: Sequence[SSEEvent]) -> Iterable[SSEEvent]:
        """Only the events an SSE item is pinned to (see ``SdkChunkRun.relevant``)."""
        return pinned(events, [item[0] for item in self.items])

    def finish(self) -> list[HandedCall]:
        while self.next < len(self.items):
            self.step()
        cut = cut_raise(self.exchange)
        if cut is not None:
            raise cut
        if self.content is None:
            raise ClientRaised("AssertionError", "")
        for pos, (buf, size) in self.last_buf.items():
            self.content[pos]["input"] = _parsed(bytes(buf[:size]))
        return [self.hand(b) for b in self.content if b.get("type") in _HANDED]

    def step(self) -> None:
        item = self.items[self.next]
        self.next += 1
        if len(item) == 2:
            raise item[1]
        _, name, data = item
        if name is None or name == "ping":
            return
        if name == "error":
            try:
                message = str(json.loads(data))
            except (ValueError, RecursionError):
                message = data or f"Error code: {self.exchange.status}"
            raise ClientRaised(_CLASSES.get(self.exchange.status, "APIStatusError"), message)
        if not data:
            return
        try:
            value = json.loads(data)
        except ValueError as exc:  # JSONDecodeError; an integer past Python's digit limit
            raise ClientRaised(type(exc).__name__, str(exc)) from None
        except RecursionError:
            raise ClientRaised("RecursionError", "maximum recursion depth exceeded") from None
        if isinstance(value, dict):
            self.event(value)
        elif self.content is None:
            raise _no_attr(value, "type")
        else:
            raise ClientRaised(
                "TypeError",
                f"Unexpected event runtime type, after deserialising twice - {value} - "
                f"{type(value)}",
            )

    def event(self, ev: dict[str, Any]) -> None:
        kind = ev.get("type")
        if self.content is None:
            if kind == "message_start":
                content = _field(ev, "message", "to_dict").get("content")
                self.content = []
                for block in content if isinstance(content, list) else []:
                    self.start(block)
            return
        if kind == "content_block_start":
            self.start(_field(ev, "content_block", "to_dict"))
        elif kind == "content_block_delta":
            self.delta(ev)
        elif kind == "content_block_stop":
            self.block(ev.get("index"))
        elif kind == "message_delta":
            _field(ev, "delta", "stop_reason")
            _field(ev, "usage", "output_tokens")

    def start(self, block: Any) -> None:
        assert self.content is not None
        block = dict(block) if isinstance(block, dict) else {"type": None}
        self.content.append(block)
        slot = None
        if block.get("type") == "tool_use":
            slot = len(self.calls)
            self.calls.append(Partial(as_text(block.get("id")), as_text(block.get("name"))))
            self.touched.add(slot)
        self.slots.append(slot)

    def block(self, index: Any) -> int:
        """The content position ``content[index]`` reads, as Python indexes a list (after
        pydantic's lax coercion of a well-typed event: ``"0"`` and ``1.0`` are ints)."""
        assert self.content is not None
        index = _lax_int(index)
        if not isinstance(index, int):
            kind = "NoneType" if index is None else type(index).__name__
            raise ClientRaised("TypeError", f"list indices must be integers or slices, not {kind}")
        pos = index + len(self.content) if index < 0 else int(index)
        if not 0 <= pos < len(self.content):
            raise ClientRaised("IndexError", "list index out of range")
        return pos

    def delta(self, ev: dict[str, Any]) -> None:
        assert self.content is not None
        index = _lax_int(ev.get("index"))
        pos = self.block(index)
        block = self.content[pos]
        delta = _field(ev, "delta", "type")
        if delta.get("type") != "input_json_delta" or block.get("type") not in _TOOL_INPUT:
            return
        fragment = delta.get("partial_json")
        if not isinstance(fragment, str):
            raise ClientRaised("TypeError", "encoding without a string argument")
        try:
            more = fragment.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ClientRaised("UnicodeEncodeError", str(exc)) from None
        buf = self.bufs.setdefault(index, bytearray())
        buf += more
        if buf and index in self.eager:
            block["input"] = _parsed(bytes(buf))
            self.last_buf.pop(pos, None)
        elif buf:
            self.last_buf[pos] = (buf, len(buf))
            self.first_buf.setdefault(index, (buf, len(buf)))
        slot = self.slots[pos]
        if slot is not None and fragment:
            self.calls[slot].add(fragment)
            self.touched.add(slot)

    @staticmethod
    def hand(block: dict[str, Any]) -> HandedCall:
        try:
            arguments = json.dumps(block.get("input"), separators=(",", ":"), ensure_ascii=False)
        except (RecursionError, ValueError) as exc:
            raise ClientRaised(type(exc).__name__, str(exc)) from None
        kind = block.get("type")
        if kind in _HOSTED:
            return HandedCall(
                as_text(block.get("id")),
                as_text(block.get("name")),
                arguments,
                CallKind.HOSTED,
                kind,
            )
        return HandedCall(as_text(block.get("id")), as_text(block.get("name")), arguments)


def _parsed(buf: bytes) -> Any:
    """jiter's partial parse of a buffer, or the SDK's ValueError."""
    try:
        return partial_loads(buf)
    except JiterError as exc:
        text = buf.decode("utf-8")
        raise ClientRaised("ValueError", _PARSE_FAILED.format(error=exc, json=text)) from None


_Cut = tuple[bytearray, int]
"""A buffer as it stood at some fragment: the buffer (still growing) and its length then."""


def _dry_run(exchange: Exchange, items: list[Item]) -> frozenset[Any]:
    """The buffer keys that must be parsed fragment by fragment (see :class:`_Run`): those
    whose first non-empty text does not open an object or array, or whose whole text fails."""
    dry = _Run(exchange, frozenset(), items)
    with contextlib.suppress(ClientRaised):
        while dry.next < len(dry.items):
            dry.step()
    eager = set()
    for key, buf in dry.bufs.items():
        first, size = dry.first_buf.get(key, (bytearray(b"{"), 1))
        if bytes(first[:size]).lstrip(b" \t\r\n")[:1] not in (b"{", b"["):
            eager.add(key)
            continue
        try:
            partial_loads(bytes(buf))
        except JiterError:
            eager.add(key)
    return frozenset(eager)


def _lax_int(value: Any) -> Any:
    """``value`` as pydantic's lax mode reads an ``int`` field (unchanged when it cannot)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INT_TEXT.fullmatch(value):
        return int(value)
    return value


class AnthropicSdk(Replica):
    """``MessageStream.get_final_message()``'s ``tool_use`` blocks (see the module)."""

    name: ClassVar[str] = "anthropic-sdk"
    library: ClassVar[str] = "anthropic"
    version: ClassVar[str] = "2.15.0"
    follows: ClassVar[str] = (
        "anthropic/lib/streaming/_messages.py (accumulate_event), anthropic/_streaming.py, "
        "jiter partial mode"
    )
    dialects: ClassVar[frozenset[str]] = frozenset({ANTHROPIC})
    plain: ClassVar[frozenset[str]] = frozenset({ANTHROPIC})
    summary: ClassVar[str] = (
        "anthropic SDK: messages.stream() then get_final_message(); each tool input re-parsed "
        "with jiter's partial mode, so a cut argument is dropped, not raised"
    )

    def plain_calls(
        self, calls: Sequence[HandedCall], tools: frozenset[str] | None
    ) -> Sequence[HandedCall] | None:
        """Each call as :meth:`_Run.hand` hands it over: its arguments' UTF-8 parsed by jiter's
        partial mode (:func:`_parsed`, the whole buffer at its last fragment) and written again
        by ``json.dumps``; None should one not parse (then it is replayed). Arguments ``""``
        (no fragment with text) keep the block's starting ``input``, ``{}`` on a plain
        stream."""
        out = []
        for call in calls:
            if not call.arguments:
                out.append(replace(call, arguments="{}"))
                continue
            try:
                value = _parsed(call.arguments.encode("utf-8"))
                text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
            except (ClientRaised, ValueError, RecursionError):
                return None
            out.append(call if text == call.arguments else replace(call, arguments=text))
        return out

    def open(self, exchange: Exchange) -> ReplicaRun:
        raised = status_error(exchange)
        if raised is not None:
            raise raised
        return _Run(exchange)
