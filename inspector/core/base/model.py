"""The vocabulary every layer shares: wire events, normalized deltas, and the OMITTED marker.

Invariants:
- Identity fields (tool-call ``id``, ``name``, ``index``) are stored *exactly as received*:
  ``OMITTED`` when the key was absent, ``None`` for JSON ``null``, ``""``, the string
  ``"null"``, or the value. Nothing in the engine may normalise them in place; policies read
  them and decide, so the same deltas can be re-judged under another policy.
- Every delta carries ``seq``, the sequence number of the wire event it came from, so any
  view can walk back from a fragment to the bytes behind it.
- These classes use ``__slots__`` and positional construction: one of them is built for every
  event and every fragment on the hot path.
"""

from __future__ import annotations

from enum import Enum
from operator import attrgetter
from typing import Any, Final


class _Omitted(Enum):
    """Marks a JSON key that was not present at all (as opposed to ``null`` or ``""``)."""

    OMITTED = "omitted"

    def __repr__(self) -> str:
        return "OMITTED"

    def __bool__(self) -> bool:
        return False


OMITTED: Final = _Omitted.OMITTED
"""The one OMITTED marker; compare with ``is``."""


def plain(value: Any) -> Any:
    """``value`` for JSON output: OMITTED becomes None (null), anything else is itself."""
    return None if value is OMITTED else value


def presence(value: object) -> str:
    """Classify an identity field as received: omitted, null, empty, null-string, or value."""
    if value is OMITTED:
        return "omitted"
    if value is None:
        return "null"
    if value == "":
        return "empty"
    if value == "null":
        return "null-string"
    return "value"


def is_blank_identity(value: object) -> bool:
    """True for identity values a lenient accumulator treats as absent: omitted, null, ``""``."""
    return value is OMITTED or value is None or value == ""


class EventKind:
    """Kinds of wire events the SSE decoder emits."""

    EVENT = "event"
    """A dispatched SSE event (has data)."""
    COMMENT = "comment"
    """A comment line (``: keep-alive``); an inspector must show these."""
    ERROR = "error"
    """Undecodable bytes (invalid UTF-8) at ``start``; decoding went on with U+FFFD. Or,
    in a framing of frames (Bedrock's), a frame that cannot be read whole: its data is the
    reason, which starts with :data:`UTF8_ERROR` only for undecodable text."""


UTF8_ERROR = "invalid UTF-8"
"""How the reason of an ERROR event for undecodable text starts (any other ERROR event is a
framing's: a CRC that does not match, a cut frame)."""


class SSEEvent:
    """One wire event with the byte range it came from.

    ``start``/``end`` are absolute byte offsets in the response body: ``start`` is the first
    byte of the event's first line, ``end`` one past its terminating blank line (or EOF).
    ``t`` is the arrival time (seconds since the request started) of the chunk that completed
    the event; 0.0 for sources without timing.
    """

    __slots__ = ("comment", "data", "end", "event", "id", "kind", "retry", "seq", "start", "t")

    def __init__(
        self,
        seq: int,
        kind: str,
        event: str,
        data: str,
        id: str | None,
        retry: int | None,
        start: int,
        end: int,
        t: float = 0.0,
        comment: str = "",
    ) -> None:
        self.seq = seq
        """Position of this event in the stream, from 0, counting comments and errors too."""
        self.kind = kind
        """One of :class:`EventKind`'s values."""
        self.event = event
        """The ``event:`` field, ``"message"`` when none was given."""
        self.data = data
        """The joined ``data:`` lines (``\\n`` between them); for errors, a readable reason."""
        self.id = id
        """The last event ID in force when the event was dispatched (WHATWG semantics: an
        ``id:`` field persists to later events), or None when no ``id:`` was ever set."""
        self.retry = retry
        """The ``retry:`` field in milliseconds, or None."""
        self.start = start
        """Absolute offset of the event's first byte in the body."""
        self.end = end
        """Absolute offset one past the event's last byte."""
        self.t = t
        """Arrival time of the chunk that completed the event, in seconds."""
        self.comment = comment
        """The comment text (without the leading colon) for COMMENT events."""

    def __eq__(self, other: object) -> bool:
        """Value equality: an event built again from a compact log equals the one decoded."""
        if type(other) is not SSEEvent:
            return NotImplemented
        return _fields(self) == _fields(other)

    __hash__ = None  # type: ignore[assignment]  # mutable (``t`` is set late): unhashable

    def __repr__(self) -> str:
        body = self.comment if self.kind == EventKind.COMMENT else self.data
        where = f"@{self.start}-{self.end}"
        return f"SSEEvent(#{self.seq} {self.kind} {self.event!r} {body[:40]!r} {where})"


_fields = attrgetter(*SSEEvent.__slots__)


class DeltaKind:
    """Kinds of normalized deltas a dialect emits."""

    TOOL_CALL = "tool_call"
    TEXT = "text"
    REASONING = "reasoning"
    FINISH = "finish"
    USAGE = "usage"
    ERROR = "error"
    CLOSE = "close"
    DONE = "done"
    KEEPALIVE = "keepalive"
    UNKNOWN = "unknown"
    META = "meta"
    RESULT = "result"
    """What the stream reports of an item's execution (a hosted tool's results, a code
    interpreter's output): ``value`` is a dict with at least ``id`` (the item's wire id) and
    what was reported; shown beside the call, never a call itself."""


class ToolCallDelta:
    """One tool-call fragment, every identity field exactly as received.

    For dialects without a wire index (Gemini, Mistral-style chunks) ``index`` is OMITTED and the
    accumulator applies its missing-index rule. ``final`` marks a fragment that restates the
    whole argument string (Responses ``function_call_arguments.done`` / ``output_item.done``):
    the accumulator reconciles it with what was streamed instead of appending it.
    """

    __slots__ = (
        "args_object",
        "arguments",
        "extra",
        "final",
        "id",
        "index",
        "name",
        "pos",
        "seq",
        "type",
    )
    kind = DeltaKind.TOOL_CALL
    shared = False
    """True on a subclass whose class holds every field but ``seq``, ``index`` and
    ``arguments`` for all its instances (the deltas a shape makes for a run of events:
    :mod:`inspector.core.providers.shapememo.runs`); test a delta with ``isinstance``."""

    def __init__(
        self,
        seq: int,
        pos: int,
        index: Any,
        id: Any,
        name: Any,
        arguments: Any,
        type: Any = OMITTED,
        args_object: bool = False,
        final: bool = False,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.seq = seq
        """Sequence number of the wire event this fragment came from."""
        self.pos = pos
        """Position of this entry among the tool-call entries of its event (0 for the first)."""
        self.index = index
        """The wire index as received (int, OMITTED, or whatever odd value was sent)."""
        self.id = id
        """The call id as received: OMITTED, None, "", "null", or a value."""
        self.name = name
        """The function name as received: OMITTED, None, "", or a value."""
        self.arguments = arguments
        """The argument fragment: a str, OMITTED, or a non-string as received (see args_object)."""
        self.type = type
        """The entry's ``type`` field as received."""
        self.args_object = args_object
        """True when arguments arrived as a JSON object/array; ``arguments`` then holds its
        compact JSON text so it can still be accumulated."""
        self.final = final
        """True when this fragment restates the complete arguments rather than appending."""
        self.extra = extra
        """Dialect-specific fields worth showing (Responses item_id, thoughtSignature …)."""

    @property
    def text(self) -> str:
        """The argument text this fragment adds, as the accumulator appends it: "" when
        omitted or null, ``repr`` of a scalar where a string belongs (kept visible)."""
        a = self.arguments
        if a is OMITTED or a is None:
            return ""
        return a if isinstance(a, str) else repr(a)

    def __repr__(self) -> str:
        return (
            f"ToolCallDelta(#{self.seq}.{self.pos} index={self.index!r} id={self.id!r} "
            f"name={self.name!r} args={self.arguments!r}{' final' if self.final else ''})"
        )


class Delta:
    """Any non-tool-call delta: text, reasoning, finish, usage, error, close, done, unknown.

    ``value`` depends on ``kind``: the text for TEXT/REASONING, the reason string for FINISH, a
    dict for USAGE, a message for ERROR, the closed call's wire index (or key) for CLOSE, the
    parsed payload (or raw data) for UNKNOWN and META.
    """

    __slots__ = ("kind", "raw", "seq", "value")

    def __init__(self, seq: int, kind: str, value: Any = None, raw: Any = None) -> None:
        self.seq = seq
        """Sequence number of the wire event behind this delta."""
        self.kind = kind
        """One of :class:`DeltaKind`'s values."""
        self.value = value
        """The payload; its meaning depends on ``kind``."""
        self.raw = raw
        """The decoded JSON object (or text) it came from, where that helps a reader."""

    def __repr__(self) -> str:
        return f"Delta(#{self.seq} {self.kind} {self.value!r})"


AnyDelta = ToolCallDelta | Delta
