"""What openai-python's chat accumulator shows the driver while the stream arrives: the first
choice's tool calls as Partials (:class:`~inspector.core.clients.base.Partial`), for where a
client stops agreeing.

Invariants:
- After each chunk, every call the accumulator holds is shown as the agent would read it then
  (``tc.id``, ``tc.function.name``, ``tc.function.arguments``; a value even ``str()`` cannot
  show, as nothing). A call's text grows by new parts while it only grows; else it is
  rewritten.
- Reading a call whole is avoided where it provably shows the same text: the same objects as
  when last read (strings or None, which cannot change; :class:`~.deltas.Pieces` with
  pieces added), and, when the chunk only merged into some calls of the same list, only those
  are looked at (:func:`merged_into`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from inspector.core.clients.base import HandedCall, Partial, as_text
from inspector.core.clients.openai_python.deltas import Pieces


class ChatMirror:
    """The first choice's tool calls, mirrored into a run's ``calls`` and ``touched``."""

    def __init__(self, calls: list[Partial], touched: set[int]) -> None:
        self.calls, self.touched = calls, touched
        self._shown: list[_Shown | None] = []
        """Per call shown, what its text was read from (see :func:`_shown`)."""
        self._looked: tuple[Any, int] = (None, 0)
        """The tool-call list as last mirrored, and its length."""

    def update(self, calls: list[Any], merged: set[int] | None) -> None:
        """Point ``calls`` at the first choice's tool calls as they now stand (a call's
        arguments only grow by concatenation, unless replaced: then they are rewritten).
        Only the calls the chunk merged into are looked at when the list is the same one,
        as long (then no other call changed: see :func:`merged_into`), and those plus the
        new ones when it grew by entries past its end (appended there)."""
        count = len(calls)
        looked, looked_count = self._looked
        if merged is None or looked is not calls or looked_count > count:
            positions: Iterable[int] = range(count)
        elif looked_count == count:
            positions = sorted({p if p >= 0 else count + p for p in merged if -count <= p < count})
        elif all(p >= 0 for p in merged):  # entries past the end were appended there
            held = sorted(p for p in merged if p < looked_count)
            positions = [*held, *range(looked_count, count)]
        else:
            positions = range(count)
        for pos in positions:
            call = calls[pos]
            if not self._grown(pos, call):
                self._mirror_one(pos, call)
        self._looked = (calls, count)

    def _grown(self, pos: int, call: Any) -> bool:
        """The call at ``pos`` shown without reading its arguments whole: the same call and
        function objects as when last read, an id and a name that are strings (or None), and
        the same arguments (a string, or the same :class:`Pieces` with pieces added: shown as
        one more part). False when it must be read whole."""
        shown = self._shown[pos] if pos < len(self._shown) else None
        if shown is None or call is not shown[0]:
            return False
        fn = call.get("function")
        if fn is not shown[2]:
            return False
        call_id = call.get("id")
        name, value = (fn.get("name"), fn.get("arguments")) if type(fn) is dict else (None, None)
        if not (_plain(call_id) and _plain(name)):
            return False
        was, count = shown[4], shown[5]
        if value is was:
            if type(value) is not Pieces:
                count = -1  # a string (or None): the same text
        elif type(value) is Pieces and count == 0 and value.parts[0] is was:
            count = 1  # a string turned into pieces by the next delta
        else:
            return False
        added = "".join(value.parts[count:]) if count >= 0 else ""
        partial = self.calls[pos]
        if added:
            partial.add(added)
        if added or (call_id, name) != (partial.id, partial.name):
            partial.id, partial.name = call_id, name
            self.touched.add(pos)
        self._shown[pos] = (call, call_id, fn, name, value, len(value.parts) if count >= 0 else 0)
        return True

    def _mirror_one(self, pos: int, call: Any) -> None:
        """The call at ``pos`` read whole and compared with what is shown."""
        now = _mirrored(call)
        self._shown[pos : pos + 1] = [_shown(call, now)]
        if pos >= len(self.calls):
            self.calls.append(Partial(now.id, now.name, [now.arguments]))
            self.touched.add(pos)
            return
        partial = self.calls[pos]
        before = partial.arguments
        if (partial.id, partial.name, before) == (now.id, now.name, now.arguments):
            return
        self.touched.add(pos)
        if now.arguments.startswith(before):
            partial.add(now.arguments[len(before) :])
        else:
            partial.parts = [now.arguments]
            partial.rewritten += 1
        partial.id, partial.name = now.id, now.name


_Shown = tuple[Any, Any, Any, Any, Any, int]
"""What a call's shown text was read from: (call, id, function, name, arguments, pieces)."""


def _shown(call: Any, now: HandedCall) -> _Shown | None:
    """The objects ``now`` was read from, when they are strings (or None) and pieces, so
    that the same objects mean the same text; else None."""
    if type(call) is not dict:
        return None
    fn = call.get("function")
    call_id = call.get("id")
    name, value = (fn.get("name"), fn.get("arguments")) if type(fn) is dict else (None, None)
    if not (_plain(call_id) and _plain(name)) or (call_id, name) != (now.id, now.name):
        return None
    if type(value) is Pieces:
        text, count = value.text(), len(value.parts)
    elif _plain(value):
        text, count = value or "", 0
    else:
        return None
    return (call, call_id, fn, name, value, count) if text == now.arguments else None


def _plain(value: Any) -> bool:
    return value is None or type(value) is str


def merged_into(chunk: dict[str, Any]) -> set[int] | None:
    """The indexes (as sent, maybe negative) of the first choice's tool calls this chunk's
    deltas merge into, or None when it may have changed any other way. ``accumulate_delta``
    changes a held call only by merging an entry into it (``_merge_entries``); an entry that
    is inserted, or a list replaced, changes the list's length or identity."""
    out: set[int] = set()
    for choice in chunk["choices"]:
        index = choice.get("index") if type(choice) is dict else None
        if type(index) is not int or index < 0:
            return None  # maybe the first choice, by a way not followed here
        if index:
            continue  # another choice (or a new one)
        delta = choice.get("delta")
        entries = delta.get("tool_calls") if type(delta) is dict else None
        if entries is None:
            continue
        if type(entries) is not list:
            return None
        for entry in entries:
            at = entry.get("index") if type(entry) is dict else None
            if type(at) is not int:
                return None
            out.add(at)
    return out


def _handed(call: Any) -> HandedCall:
    """One call as the agent reads it: ``tc.id``, ``tc.function.name``,
    ``tc.function.arguments`` (lenient: for the mirror while the stream arrives)."""
    if not isinstance(call, dict):
        return HandedCall(None, None, "")
    fn = call.get("function")
    fn = fn if isinstance(fn, dict) else {}
    return HandedCall(
        as_text(call.get("id")), as_text(fn.get("name")), as_arguments(fn.get("arguments"))
    )


def _mirrored(call: Any) -> HandedCall:
    """:func:`_handed` for the prefix check: a value even ``str()`` cannot show (an integer
    past Python's digit limit) shows as nothing, where the agent reading it would raise."""
    try:
        return _handed(call)
    except ValueError:
        return HandedCall(None, None, "")


def not_string(value: Any) -> bool:
    """Arguments the library hands over as something else than a string (a dict, a list, a
    number: what the wire sent, unvalidated): :attr:`HandedCall.object`."""
    return value is not None and not isinstance(value, str | Pieces)


def as_arguments(value: Any) -> str:
    """Arguments as handed over: the string, "" for none, compact JSON for an object."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Pieces):
        return value.text()
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
