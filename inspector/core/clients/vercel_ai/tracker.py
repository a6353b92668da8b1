"""How the Vercel AI SDK assembles streamed tool calls: ``@ai-sdk/openai-compatible`` 3.0.92's
per-index buffering in front of ``@ai-sdk/provider-utils`` 5.0.81's
``StreamingToolCallTracker`` (with ``StreamingToolCallArgumentState``).

Invariants (what the SDK does, modelled here):
- The provider holds each index's deltas until one names the function (``function.name`` not
  null: an empty string counts), then forwards one delta with the first id seen and all the
  argument text so far; later deltas of that index, and deltas without an index, go straight
  to the tracker.
- The tracker matches a delta to a call by evidence: its id (blank ids are none), its index,
  its name, and whether its arguments open a new JSON value while the matching call already
  holds a complete one (the table in ``resolveToolCall``); a delta it cannot place is
  dropped (*ambiguous*), and so is an unmatched delta whose name is blank. A delta that must
  open a call but names no function raises ``InvalidResponseDataError: Expected
  'function.name' to be a string.``
- A new call takes its wire id unless that id is blank or already taken; otherwise the SDK's
  ``generateId()``, here fixed at ``0000000000000000`` (the runner fixes the SDK's random
  source so goldens are stable), suffixed ``-1``, ``-2`` … when taken.
- Nothing is handed over before the stream ends; :meth:`Tracker.finish` orders the calls by
  index when every call has one (ties by arrival), else by arrival.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from operator import attrgetter
from typing import Any, Final

from inspector.core.clients.base import ClientRaised, HandedCall, Partial, same_id, same_text

GENERATED: Final = "0000000000000000"
"""What ``generateId()`` returns under the runner's fixed random source."""
_JS_SPACE: Final = "\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff" + "".join(
    chr(c) for c in range(0x2000, 0x200B)
)
_NO_NAME: Final = "Expected 'function.name' to be a string."


def js_trim(text: str) -> str:
    """``String.prototype.trim()``."""
    return text.strip(_JS_SPACE)


def _nonblank(value: Any) -> str | None:
    return value if isinstance(value, str) and js_trim(value) else None


_SETTLED: Final[tuple[str, ...]] = ()
"""The stack of a state nothing changes any more (complete, or not structured): shared."""


class ArgumentState:
    """``StreamingToolCallArgumentState``: whether the text holds a complete ``{…}``/``[…]``
    (counted structurally, strings and escapes respected; never parsed)."""

    __slots__ = ("complete", "escaped", "in_string", "kind", "stack")

    def __init__(self, text: str = "") -> None:
        self.kind = "undetermined"
        self.stack: list[str] | tuple[str, ...] = _SETTLED
        self.in_string = False
        self.escaped = False
        self.complete = False
        self.append(text)

    def append(self, text: str) -> None:
        """Read more text: only the characters that matter are visited (found by a regular
        expression: quotes and backslashes in a string; quotes and brackets outside)."""
        if self.kind == "other" or self.complete:
            return  # nothing more changes it
        i, n = 0, len(text)
        if self.kind == "undetermined":
            while i < n and text[i] in _JS_SPACE:
                i += 1
            if i == n:
                return
            if text[i] not in "{[":
                self.kind = "other"
                return
            self.kind, self.stack = "structured", [text[i]]
            i += 1
        while i < n:
            if self.escaped:  # the character after a backslash, in a string
                self.escaped = False
                i += 1
                continue
            found = (_IN_STRING if self.in_string else _OUTSIDE).search(text, i)
            if found is None:
                return
            c, i = found.group(), found.end()
            if self.in_string:
                self.escaped, self.in_string = c == "\\", c == "\\"
            elif c == '"':
                self.in_string = True
            elif c in "{[":
                self.stack.append(c)  # type: ignore[union-attr]  # (a list while structured)
            elif self.stack[-1] != ("{" if c == "}" else "["):
                self.kind, self.stack = "other", _SETTLED
                return
            else:
                self.stack.pop()  # type: ignore[union-attr]
                if not self.stack:
                    self.complete, self.stack = True, _SETTLED
                    return


_IN_STRING: Final = re.compile(r'["\\]')
_OUTSIDE: Final = re.compile(r'["{}\[\]]')


class Tracked(Partial):
    """One call the tracker holds, and the very :class:`Partial` the driver sees (its parts
    are the call's argument text, in the order it arrived)."""

    __slots__ = ("index", "sequence", "state")

    def __init__(self, id_: str, name: str, index: Any, sequence: int) -> None:
        super().__init__(id_, name, "")
        self.index = index
        self.sequence = index if type(index) is int and index == sequence else sequence
        """Its place in the tracker's calls (and in the driver's)."""
        self.state = ArgumentState()

    def grow(self, args: str) -> None:
        """More argument text read into the state; a state nothing changes any more is
        swapped for the shared one of its kind."""
        state = self.state
        if state is _COMPLETE or state is _OTHER:
            return
        state.append(args)
        if state.complete:
            self.state = _COMPLETE
        elif state.kind == "other":
            self.state = _OTHER

    @property
    def partial(self) -> Partial:
        """What the driver sees: the call itself."""
        return self


_COMPLETE: Final = ArgumentState("{}")
"""The state of every call whose text holds a complete value (never changed again)."""
_OTHER: Final = ArgumentState("x")
"""The state of every call whose text is not structured (never changed again)."""


_index: Final = attrgetter("index")
"""A call's index (a sort key that makes no object per call)."""


def _many(calls: Tracked | list[Tracked] | None) -> list[Tracked] | None:
    """A by-id or by-index entry as a list (one call is kept bare, not in a list)."""
    return [calls] if isinstance(calls, Tracked) else calls


def _add(table: dict[Any, Tracked | list[Tracked]], key: Any, call: Tracked, once: bool) -> None:
    """``table[key].append(call)`` (skipped when ``once`` and it is there already)."""
    held = table.get(key)
    if held is None:
        table[key] = call
    elif isinstance(held, Tracked):
        if not (once and held is call):
            table[key] = [held, call]
    elif not (once and call in held):
        held.append(call)


_FLAGS: Final = 1 << 20
"""Whole-number indexes below this are held as one byte each in :class:`_Indexes`."""


class _Indexes:
    """A set of wire indexes (``in``, ``add``): an index equal to a whole number from 0 below
    :data:`_FLAGS` is a byte of ``flags`` (a long stream's indexes are 0, 1, 2 …: a set of
    them held ~100 bytes each), any other value is in ``others``. Membership is the set's:
    numbers compare by value (``1 == 1.0 == True``), and only numbers equal whole numbers."""

    __slots__ = ("flags", "others")

    def __init__(self) -> None:
        self.flags = bytearray()
        self.others: set[Any] = set()

    def __contains__(self, value: Any) -> bool:
        at = _flag(value)
        if at < 0:
            return value in self.others
        return at < len(self.flags) and self.flags[at] == 1

    def add(self, value: Any) -> None:
        at = _flag(value)
        if at < 0:
            self.others.add(value)
            return
        flags = self.flags
        if at >= len(flags):
            flags.extend(bytes(at + 1 - len(flags)))
        flags[at] = 1


def _flag(value: Any) -> int:
    """``value``'s place in :attr:`_Indexes.flags`, -1 when it has none."""
    if isinstance(value, int | float) and 0 <= value < _FLAGS:
        whole = int(value)
        if whole == value:
            return whole
    return -1


def _structured_start(text: Any) -> bool:
    """``startsWithStructuredValue``: the text's first non-space character opens ``{`` or
    ``[``."""
    return isinstance(text, str) and text.lstrip(_JS_SPACE)[:1] in ("{", "[")


class Tracker:
    """The provider's pending buffer plus the shared tracker (see the module's invariants)."""

    def __init__(self, calls: list[Partial], touched: set[int]) -> None:
        self.calls, self.touched = calls, touched
        self.expected: Sequence[HandedCall] = ()
        """The inspector's calls (an equal id or text is held as the inspector's string)."""
        self.tracked: list[Tracked] = []
        self.by_id: dict[str, Tracked | list[Tracked]] = {}
        self.by_index: dict[Any, Tracked | list[Tracked]] = {}
        self.generated: set[str] = set()
        """The ids made up for calls (``usedIds`` is these and the tracked calls' wire ids)."""
        self.names: dict[str, str] = {}
        self.suffix: dict[str, int] = {}
        self.pending: dict[Any, dict[str, Any]] = {}
        self.forwarded = _Indexes()

    # -- the provider's buffering ------------------------------------------------------------

    def delta(self, d: dict[str, Any]) -> None:
        """One ``tool_calls`` entry as zod passed it."""
        index = d.get("index")
        fn = d.get("function") or {}
        if index is None or index in self.forwarded:
            self.process(d.get("id"), index, fn.get("name"), fn.get("arguments"))
            return
        pending = self.pending.setdefault(index, {"id": d.get("id"), "args": []})
        if pending["id"] is None and d.get("id") is not None:
            pending["id"] = d.get("id")
        if fn.get("arguments") is not None:
            pending["args"].append(fn["arguments"])
        if fn.get("name") is not None:
            del self.pending[index]
            self.forwarded.add(index)
            self.process(pending["id"], index, fn["name"], "".join(pending["args"]))

    def finish(self) -> list[Tracked]:
        """The stream ended: unnamed buffers forwarded (raising, as the SDK does), then every
        call in hand-over order."""
        for index, pending in list(self.pending.items()):
            self.process(pending["id"], index, None, "".join(pending["args"]))
        self.pending.clear()
        if all(t.index is not None for t in self.tracked):  # by (index, sequence): the calls
            return sorted(self.tracked, key=_index)  # are in sequence order, the sort stable
        return list(self.tracked)

    # -- StreamingToolCallTracker.processDelta -----------------------------------------------

    def process(self, wire_id: Any, index: Any, wire_name: Any, args: Any) -> None:
        blank_name = isinstance(wire_name, str) and not js_trim(wire_name)
        id_, name = _nonblank(wire_id), _nonblank(wire_name)
        explicit = name is not None and _structured_start(args)
        empty = args is None or not js_trim(args)
        found = self.resolve(id_, index, name, explicit, empty)
        if isinstance(found, str):  # "ambiguous": the SDK drops the delta
            return
        if found is None:
            if blank_name:
                return
            if name is None:
                raise ClientRaised("InvalidResponseDataError", _NO_NAME)
            found = self.open(id_, index, name, args if isinstance(args, str) else "")
        else:
            if id_ is not None:
                _add(self.by_id, id_, found, once=False)
            if args is not None:
                found.grow(args)
                found.add(args)
                self.touched.add(found.sequence)
        if index is not None:
            _add(self.by_index, index, found, once=True)

    def resolve(
        self, id_: str | None, index: Any, name: str | None, explicit: bool, empty: bool
    ) -> Tracked | str | None:
        """``resolveToolCall``: a call, ``"ambiguous"``, or None for a new call."""
        at_index = _many(self.by_index.get(index)) if index is not None else None
        named = [t for t in at_index or [] if name is None or t.name == name]
        if id_ is not None:
            with_id = _many(self.by_id.get(id_))
            if with_id is not None:
                if index is not None:
                    found = self.match([t for t in named if t in with_id], explicit)
                    if found is not None:
                        return found
                    if name is not None:
                        return None
                    if at_index is not None:
                        return "ambiguous"
                    return self.match(list(with_id), False)
                if name is not None:
                    return self.match([t for t in with_id if t.name == name], explicit)
                return self.match(list(with_id), False)
            if named:
                return None if explicit else self.match(named, name is not None and empty)
            return None
        if at_index is not None:
            return self.match(named, explicit)
        if name is not None:
            return None
        return self.match(list(self.tracked), False)  # every call is open until the end

    @staticmethod
    def match(calls: list[Tracked], explicit: bool) -> Tracked | str | None:
        """``resolveMatchingToolCall``."""
        if not calls:
            return None
        continuable = [t for t in calls if not t.state.complete]
        if not explicit and len(calls) == 1:
            return calls[0]
        if len(continuable) == 1:
            return continuable[0]
        if len(continuable) > 1 or not explicit:
            return "ambiguous"
        return None

    def open(self, id_: str | None, index: Any, name: str, args: str) -> Tracked:
        """``processNewToolCall``."""
        name = self.names.setdefault(name, name)  # a tool's name comes with every call
        pos = len(self.tracked)
        id_ = same_id(self.expected, pos, id_)  # the inspector's equal string: one copy
        call = Tracked(self.new_id(id_), name, index, pos)
        call.grow(args)
        if args:
            call.parts = same_text(self.expected, pos, args)
        self.tracked.append(call)
        self.calls.append(call)
        self.touched.add(len(self.calls) - 1)
        if id_ is not None:
            _add(self.by_id, id_, call, once=False)
        return call

    def new_id(self, id_: str | None) -> str:
        """``createToolCallId``."""
        if id_ is not None and not self.taken(id_):
            return id_
        if not self.taken(GENERATED):
            self.generated.add(GENERATED)
            return GENERATED
        start = self.suffix.get(GENERATED, 1)
        for n in range(start, start + len(self.tracked) + 1):
            candidate = f"{GENERATED}-{n}"
            if not self.taken(candidate):
                self.generated.add(candidate)
                self.suffix[GENERATED] = n + 1
                return candidate
        raise ClientRaised("Error", "Failed to create a unique tool call ID.")

    def taken(self, id_: str) -> bool:
        """``usedIds.has(id_)``: the ids handed out are the tracked calls' own, so no set of
        them is kept: a call given its wire id is under that id in ``by_id`` (added when it
        opened), a generated one is in ``generated``."""
        if id_ in self.generated:
            return True
        held = self.by_id.get(id_)
        return held is not None and any(t.id == id_ for t in _many(held) or ())
