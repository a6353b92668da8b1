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

from dataclasses import dataclass, field
from typing import Any, Final

from inspector.core.clients.base import ClientRaised, Partial

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


class ArgumentState:
    """``StreamingToolCallArgumentState``: whether the text holds a complete ``{…}``/``[…]``
    (counted structurally, strings and escapes respected; never parsed)."""

    def __init__(self, text: str = "") -> None:
        self.kind = "undetermined"
        self.stack: list[str] = []
        self.in_string = False
        self.escaped = False
        self.complete = False
        self.append(text)

    def append(self, text: str) -> None:
        if self.kind == "other" or self.complete:
            return  # nothing more changes it
        for c in text:
            if self.kind == "undetermined":
                if c in _JS_SPACE:
                    continue
                if c not in "{[":
                    self.kind = "other"
                    continue
                self.kind, self.stack = "structured", [c]
                continue
            if self.kind != "structured" or self.complete:
                continue
            if self.in_string:
                if self.escaped:
                    self.escaped = False
                elif c == "\\":
                    self.escaped = True
                elif c == '"':
                    self.in_string = False
            elif c == '"':
                self.in_string = True
            elif c in "{[":
                self.stack.append(c)
            elif c in "}]":
                if self.stack[-1] != ("{" if c == "}" else "["):
                    self.kind = "other"
                    continue
                self.stack.pop()
                self.complete = not self.stack


@dataclass(eq=False)
class Tracked:
    """One call the tracker holds; ``partial`` is what the driver sees (its parts are the
    call's argument text, in the order it arrived)."""

    partial: Partial
    index: Any
    sequence: int
    """Its place in the tracker's calls (and in the driver's)."""
    state: ArgumentState = field(default_factory=ArgumentState)

    @property
    def arguments(self) -> str:
        """The argument text so far."""
        return "".join(self.partial.parts)


def _structured_start(text: Any) -> bool:
    """``startsWithStructuredValue``: the text's first non-space character opens ``{`` or
    ``[``."""
    return isinstance(text, str) and text.lstrip(_JS_SPACE)[:1] in ("{", "[")


class Tracker:
    """The provider's pending buffer plus the shared tracker (see the module's invariants)."""

    def __init__(self, calls: list[Partial], touched: set[int]) -> None:
        self.calls, self.touched = calls, touched
        self.tracked: list[Tracked] = []
        self.by_id: dict[str, list[Tracked]] = {}
        self.by_index: dict[Any, list[Tracked]] = {}
        self.used: set[str] = set()
        self.suffix: dict[str, int] = {}
        self.pending: dict[Any, dict[str, Any]] = {}
        self.forwarded: set[Any] = set()

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
        if all(t.index is not None for t in self.tracked):
            return sorted(self.tracked, key=lambda t: (t.index, t.sequence))
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
                self.by_id.setdefault(id_, []).append(found)
            if args is not None:
                found.state.append(args)
                found.partial.parts.append(args)
                self.touched.add(found.sequence)
        if index is not None and found not in self.by_index.setdefault(index, []):
            self.by_index[index].append(found)

    def resolve(
        self, id_: str | None, index: Any, name: str | None, explicit: bool, empty: bool
    ) -> Tracked | str | None:
        """``resolveToolCall``: a call, ``"ambiguous"``, or None for a new call."""
        at_index = self.by_index.get(index) if index is not None else None
        named = [t for t in at_index or [] if name is None or t.partial.name == name]
        if id_ is not None:
            with_id = self.by_id.get(id_)
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
                    return self.match([t for t in with_id if t.partial.name == name], explicit)
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
        call = Tracked(Partial(self.new_id(id_), name), index, len(self.tracked))
        call.state = ArgumentState(args)
        if args:
            call.partial.parts.append(args)
        self.tracked.append(call)
        self.calls.append(call.partial)
        self.touched.add(len(self.calls) - 1)
        if id_ is not None:
            self.by_id.setdefault(id_, []).append(call)
        return call

    def new_id(self, id_: str | None) -> str:
        """``createToolCallId``."""
        if id_ is not None and id_ not in self.used:
            self.used.add(id_)
            return id_
        if GENERATED not in self.used:
            self.used.add(GENERATED)
            return GENERATED
        start = self.suffix.get(GENERATED, 1)
        for n in range(start, start + len(self.used) + 1):
            candidate = f"{GENERATED}-{n}"
            if candidate not in self.used:
                self.used.add(candidate)
                self.suffix[GENERATED] = n + 1
                return candidate
        raise ClientRaised("Error", "Failed to create a unique tool call ID.")
