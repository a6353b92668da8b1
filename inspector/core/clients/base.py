"""The replica protocol: what a client replica reads, what it hands over, how it fails.

Invariants:
- A :class:`ReplicaRun` is fed every wire event of one response body in ``seq`` order
  (comments and undecodable-byte errors included: libraries differ on both), then finished
  once. Either may raise :class:`ClientRaised`; after a raise the run is not used again.
- While events arrive, ``calls`` holds what the library has assembled so far, one
  :class:`Partial` per call in the order the library would hand them over, and ``touched``
  the positions changed since the driver last cleared it. A replica appends argument text to
  ``Partial.parts`` and bumps ``Partial.rewritten`` when it replaces text already there; this
  keeps the driver's prefix check linear in the stream.
- A run may hold the inspector's string wherever its own is equal
  (:attr:`ReplicaRun.expected`); the driver swaps it in for an agreeing id and whole argument
  text. Strings are immutable and equal ones alike to every operation a library does, so
  what a run hands over or raises never depends on it (the goldens hold every replica to it).
- :meth:`ReplicaRun.finish` returns the calls the library hands to the agent, arguments as a
  string exactly as handed over (for libraries that hand over parsed objects: their JSON,
  compact, keys in the object's order); a call whose arguments the library hands over as an
  object where its API's type is a string (openai-python's ``arguments`` when the wire sent
  an object) says so (``HandedCall.object``): the type is part of agreement.
- Every tool-call item the library hands over is listed, whatever runs it, with its
  :class:`~inspector.core.base.kinds.CallKind` and the wire's item type as the library reads
  them (``hosted`` items, which the provider ran, are reported beside the agent's calls and
  never compared with them).
- An outcome can be calls AND an error: a library that reports an error without ending the
  stream (the AI SDK's ``error`` part), or raises after handing calls over, says where, in
  hand-over order (:attr:`ReplicaRun.reported`, :attr:`ClientRaised.handed`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from inspector.core.base.kinds import CallKind
from inspector.core.base.model import SSEEvent


@dataclass(frozen=True)
class Exchange:
    """What a client library saw of one request: the response status, its content type, the
    body as wire events (and bytes, where a replica must re-read them) and how it ended."""

    events: Sequence[SSEEvent]
    """Every wire event of the body, ``events[i].seq == i``."""
    body: bytes = b""
    """The body's bytes as received (empty when only events are known)."""
    status: int = 200
    """The HTTP status (200 for a raw body, which records none)."""
    content_type: str | None = "text/event-stream"
    """The response's Content-Type header as received, None when it had none."""
    transport_error: str | None = None
    """Why the body ended early (a reset, a timeout), None for a clean end of the body."""
    dialect: str | None = None
    """The provider name the inspector read the body as (None when unknown)."""
    tools: frozenset[str] | None = None
    """The tool names the request declared (None when unknown: every name counts as
    declared). A library that checks a call against them (the AI SDK) reads them here."""


LONG_TEXT: Final = 1 << 16
"""Characters from which a call's text a library re-writes (parses, then writes as JSON) is
dropped once parsed, before it is written again (never held twice); a shorter one is kept,
to be handed over itself when written the same (no second copy of equal text)."""


def as_text(value: object) -> str | None:
    """An id or a name as an agent reads it: the string, None, or ``str()`` of anything else
    (the one rule every replica and the driver use for identity fields)."""
    return value if value is None or isinstance(value, str) else str(value)


@dataclass(frozen=True, slots=True)
class HandedCall:
    """One call as the library hands it to the agent (one per call per result: slotted, and
    shared with the inspector's own where equal, see :func:`.judge.run_replica`)."""

    id: str | None
    name: str | None
    arguments: str
    kind: str = CallKind.FUNCTION
    """The item's kind as the library hands it over (``hosted``: the provider ran it)."""
    item_type: str | None = None
    """The wire item type the library read it from, where it is not a function call."""
    object: bool = False
    """The arguments were handed over as an object (written here as JSON) where the
    library's API types them as a string: an agent's ``json.loads`` fails on it."""

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` shape: ``{"id", "name", "arguments"}``, then ``kind`` and
        ``item_type`` for an item that is not a function call, ``object`` when true."""
        out: dict[str, Any] = {"id": self.id, "name": self.name, "arguments": self.arguments}
        if self.kind != CallKind.FUNCTION or self.item_type is not None:
            out["kind"] = self.kind
            out["item_type"] = self.item_type
        if self.object:
            out["object"] = True
        return out

    @property
    def hosted(self) -> bool:
        """The provider ran it: never one of the agent's calls."""
        return self.kind == CallKind.HOSTED


class ClientRaised(Exception):
    """The library would raise here: ``type`` is its exception's class name (``TypeError``,
    ``JSONDecodeError``, ``APIStatusError`` …), ``message`` its message as the library words it
    (or as close as the replica can model it). A lone surrogate the message quotes from the
    wire (a ``\\udc63`` escape in an event's type) is written as its escape, so the report
    can be serialised as UTF-8."""

    def __init__(
        self, type_: str, message: str, handed: Sequence[HandedCall] | None = None
    ) -> None:
        if not message.isascii():
            message = message.encode("utf-8", "backslashreplace").decode("utf-8")
        super().__init__(f"{type_}: {message}")
        self.type = type_
        self.message = message
        self.handed: Sequence[HandedCall] = handed or ()
        """Calls the library had already handed over when it raised (the AI SDK's
        ``tool-call`` parts before a thrown error), in order; none for most libraries,
        which hand calls over only at the end."""


@dataclass(slots=True)
class Partial:
    """One call as the library holds it while the stream arrives."""

    id: str | None = None
    name: str | None = None
    parts: list[str] | str = field(default_factory=list)
    """Argument text in the order the library appended it: a list of pieces, or a string:
    one piece held as itself, ``""`` none (no list for the common one-piece call; a replica
    that holds it so starts from ``""`` and grows it with :meth:`add`)."""
    rewritten: int = 0
    """Bumped each time the library replaced argument text already held (the driver then
    re-checks the whole string)."""

    @property
    def arguments(self) -> str:
        """The argument text so far."""
        parts = self.parts
        return parts if type(parts) is str else "".join(parts)

    def add(self, piece: str) -> None:
        """``piece`` appended to the argument text: a list is appended to in place (a library
        that shares the list sees the piece); a string becomes the piece itself when empty,
        else a list of the two."""
        parts = self.parts
        if not isinstance(parts, str):
            parts.append(piece)
        elif parts:
            self.parts = [parts, piece]
        else:
            self.parts = piece

    def handed(self) -> HandedCall:
        """This call handed over as it stands."""
        return HandedCall(self.id, self.name, self.arguments)


def same_id(expected: Sequence[HandedCall], pos: int, value: Any) -> Any:
    """``value``, or ``expected[pos].id`` when equal (see :attr:`ReplicaRun.expected`)."""
    if type(value) is str and pos < len(expected):
        want = expected[pos].id
        if value == want:
            return want
    return value


def same_text(expected: Sequence[HandedCall], pos: int, value: Any) -> Any:
    """``value``, or ``expected[pos].arguments`` when equal."""
    if type(value) is str and pos < len(expected):
        want = expected[pos].arguments
        if value == want:
            return want
    return value


def pieces(parts: list[str] | str) -> Sequence[str]:
    """``Partial.parts`` as a sequence of pieces (a string is one piece, ``""`` none)."""
    if isinstance(parts, str):
        return (parts,) if parts else ()
    return parts


class ReplicaRun(ABC):
    """One replica reading one response body."""

    expected: Sequence[HandedCall] = ()
    """The inspector's calls, set by the driver before the first event: a run may hold the
    inspector's string in place of an equal one it decoded (:meth:`same_id`,
    :meth:`same_text`): equal strings are immutable and alike to every library operation,
    so what it hands over and raises never changes, and it holds no second copy."""

    def __init__(self) -> None:
        self.calls: list[Partial] = []
        """What the library holds so far, in hand-over order."""
        self.touched: set[int] = set()
        """Positions in ``calls`` changed since the driver cleared it."""
        self.reported: tuple[ClientRaised, int] | None = None
        """The first error the library reported without ending the stream (the AI SDK's
        ``error`` part) and how many calls it had handed over before it: the outcome is
        then those calls and that error, and the calls after it (:meth:`report`)."""

    def report(self, error: ClientRaised, after: int) -> None:
        """The library reports ``error`` and streams on, ``after`` calls handed over so far
        (only the first report is kept: an agent stopping at an error stops at it)."""
        if self.reported is None:
            self.reported = (error, after)

    def same_id(self, pos: int, value: Any) -> Any:
        """``value`` (an id as decoded), or the inspector's equal id of call ``pos``."""
        return same_id(self.expected, pos, value)

    def same_text(self, pos: int, value: Any) -> Any:
        """``value`` (argument text as decoded), or the inspector's equal arguments of call
        ``pos``."""
        return same_text(self.expected, pos, value)

    @abstractmethod
    def feed(self, event: SSEEvent) -> None:
        """Read one wire event (raise :class:`ClientRaised` where the library would)."""

    def relevant(self, events: Sequence[SSEEvent]) -> Iterable[SSEEvent]:
        """The events of ``events`` (the exchange's) this run must be fed, in order: every
        one unless the run knows that feeding any other would change nothing and raise
        nothing (then the driver feeds only these: a flood of comments costs nothing)."""
        return events

    @abstractmethod
    def finish(self) -> list[HandedCall]:
        """The body ended (cleanly, or with ``Exchange.transport_error``): the calls handed to
        the agent, or raise what the library raises at that point."""


class Replica(ABC):
    """A behavioural model of one client library's streaming accumulator."""

    name: ClassVar[str]
    """The replica's name in every view and in ``--client`` (``openai-python``)."""
    library: ClassVar[str]
    """The package it models, as installed (``openai``; ``@ai-sdk/openai-compatible``)."""
    version: ClassVar[str]
    """The library version whose behaviour it follows (``3.57.0``)."""
    follows: ClassVar[str]
    """The source file(s) it follows, inside the library."""
    dialects: ClassVar[frozenset[str]]
    """The dialects the library speaks (provider names); others are ``n/a``."""
    summary: ClassVar[str]
    """One line: what it models (the Clients view's tooltip)."""
    plain: ClassVar[frozenset[str]] = frozenset()
    """The dialects on which the library hands over exactly a plain stream's calls
    (:mod:`inspector.core.clients.plain`): there it is judged from that reading (what
    :meth:`plain_calls` makes of it) instead of being replayed. Declared only where
    ``tests/core/clients/plain/`` proves it on every golden, generated and mutated stream."""

    def plain_calls(
        self, calls: Sequence[HandedCall], tools: frozenset[str] | None
    ) -> Sequence[HandedCall] | None:
        """What the library hands over on a plain stream whose calls are ``calls`` (the
        request declared ``tools``, None: unknown): ``calls`` themselves unless the library
        says otherwise; None when it may differ there (then it is replayed)."""
        return calls

    @abstractmethod
    def open(self, exchange: Exchange) -> ReplicaRun:
        """A fresh run over ``exchange``; raise :class:`ClientRaised` when the library raises
        before reading the body (an HTTP error status, a content type it refuses)."""
