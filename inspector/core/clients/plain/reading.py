"""The plain reading of one attempt, made once and shared by every replica that declares it.

Invariants:
- :func:`plain_reading` returns the attempt's calls as every declaring library hands them
  over, or None when the stream is not plain (then every replica is replayed). It never
  returns calls that differ from the inspector's own (:func:`~.judge.expected_calls`): a
  predicate reads the body on its own and its calls must equal the inspector's, field for
  field, or the stream is not plain; nor calls whose arguments nest :data:`DEEPEST` levels
  or more (where the libraries' decoders part ways).
- A predicate reads only the body (the pieces it is given, in order, or ``Exchange.body``
  when there are none: never an empty ``Exchange.body`` in place of given pieces) and the
  exchange's status, content type and end: one pass, no decoded value kept, nothing it
  reads is changed.
- Computed once per attempt and expected calls (a weak cache, like the expected calls').
- A body that may hold a ``__proto__`` or ``constructor`` key anywhere is never plain (the
  AI SDK refuses such an event): every reader refuses it (:mod:`.prototype`), searching every
  byte it reads that may hold a key.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from inspector.core.analysis.attempt import AttemptView
from inspector.core.clients.base import Exchange, HandedCall
from inspector.core.clients.plain.anthropic import anthropic_calls
from inspector.core.clients.plain.chat import chat_calls
from inspector.core.clients.plain.gemini import gemini_calls
from inspector.core.clients.plain.responses import responses_calls
from inspector.core.providers import ANTHROPIC, GEMINI, OPENAI_CHAT, OPENAI_RESPONSES

PLAIN_STREAM: Final = "plain stream"
"""How a result judged from the plain reading says it was judged (``analyze --json``'s
``judged``); a replayed one says :data:`REPLAYED`."""
REPLAYED: Final = "replayed"

Reader = Callable[[Exchange, Iterable[bytes] | None, Sequence[str] | None], list[HandedCall] | None]
"""A dialect's plain-stream predicate: (the exchange, its body's pieces or None, the
inspector's arguments or None) -> the calls, or None."""
READERS: Final[dict[str, Reader]] = {
    OPENAI_CHAT: chat_calls,
    OPENAI_RESPONSES: responses_calls,
    ANTHROPIC: anthropic_calls,
    GEMINI: gemini_calls,
}
"""Per dialect, its plain-stream predicate: the calls of a plain body, None otherwise; the
body is the pieces given (in order), or ``Exchange.body`` when they are None; given the
inspector's arguments, call by call, a predicate may refuse (None) as soon as one differs,
and hand over those strings themselves where equal (no second copy)."""


@dataclass(frozen=True, slots=True)
class PlainReading:
    """The calls of a plain stream, and the tool names the request declared."""

    calls: Sequence[HandedCall]
    """The inspector's own calls (the expected sequence itself)."""
    tools: frozenset[str] | None


_READINGS: weakref.WeakKeyDictionary[
    AttemptView, tuple[Sequence[HandedCall], PlainReading | None]
] = weakref.WeakKeyDictionary()


def plain_reading(
    view: AttemptView,
    exchange: Callable[[AttemptView], tuple[Exchange, Iterable[bytes] | None]],
    expected: Sequence[HandedCall],
) -> PlainReading | None:
    """The plain reading of ``view`` (see the invariants), cached per attempt; ``exchange``
    makes what the client saw of it and the body's pieces (called only when the reading is
    not cached)."""
    kept = _READINGS.get(view)
    if kept is not None and kept[0] is expected:
        return kept[1]
    reading = read(*exchange(view), expected=expected)
    _READINGS[view] = (expected, reading)
    return reading


DEEPEST: Final = 256
"""Nesting from which a call's arguments are never plain. The libraries' decoders give up
at different depths (the stdlib's ``json.loads`` at the interpreter's recursion limit, less
the caller's own depth: ~1,000 at best; orjson at 1,024; jiter and V8 elsewhere), so a
reading made by one would not be every library's: such a call is replayed. Real tool
arguments nest a few levels."""
_STRINGS: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
"""A JSON text's strings, whole (a bracket inside one does not nest)."""
_BRACKETS: Final = re.compile(r"[\[\]{}]")


def too_deep(text: str) -> bool:
    """Do ``text``'s arrays and objects nest :data:`DEEPEST` levels or more? Counted in C
    (a text with fewer brackets cannot, nor one with fewer outside its strings); only a text
    with that many brackets outside its strings is walked."""
    if text.count("[") + text.count("{") < DEEPEST:
        return False
    bare = _STRINGS.sub("", text)
    if bare.count("[") + bare.count("{") < DEEPEST:
        return False
    depth = 0
    for c in _BRACKETS.findall(bare):
        if c == "[" or c == "{":
            depth += 1
            if depth >= DEEPEST:
                return True
        else:
            depth -= 1
    return False


def read(
    exchange: Exchange, pieces: Iterable[bytes] | None = None, *, expected: Sequence[HandedCall]
) -> PlainReading | None:
    """The plain reading of one exchange against the inspector's ``expected`` calls; its
    body is ``pieces`` (in order), or ``exchange.body`` when they are None."""
    reader = READERS.get(exchange.dialect or "")
    if reader is None or exchange.transport_error is not None or exchange.status != 200:
        return None
    calls = reader(exchange, pieces, [call.arguments for call in expected])
    if calls is None or len(calls) != len(expected):
        return None
    for mine, theirs in zip(calls, expected, strict=True):
        if (
            mine.id != theirs.id
            or mine.name != theirs.name
            or mine.arguments != theirs.arguments
            or (mine.kind, mine.item_type, mine.object)
            != (theirs.kind, theirs.item_type, theirs.object)
            or too_deep(mine.arguments)
        ):
            return None
    return PlainReading(expected, exchange.tools)
