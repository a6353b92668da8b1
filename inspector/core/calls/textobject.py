"""A call written in the assistant text (:class:`TextCall`), and the call object
``{"name": …, "arguments": …}`` it is read from as the text streams (:class:`CallObject`).

:mod:`inspector.core.calls.textcalls` finds where calls are written; this module reads one
call object and keeps its call.

Invariants:
- A :class:`TextCall` is a :class:`~inspector.core.calls.accumulator.ToolCall` whose
  fragments were read from text deltas (``index`` OMITTED, ``pos`` 0, ``seq`` that of the
  wire event whose text carried the piece); only its reader changes it.
- Identity as received: the name and id are the JSON values written (OMITTED when none is
  written); the arguments are the raw text of the ``arguments`` (or ``parameters``) value,
  piece by piece as it arrives; the rest of the object is not part of them.
- The call opens when its name is known (a ``json`` one also needs its arguments key):
  argument pieces read before are held and handed on then, each with its own ``seq``. An id
  written after the call opened fills in its blank id (a fragment carrying only the id).
- After a marker, an object that ends without a name, or whose own syntax breaks, is an
  invalid call whose arguments hold the text as written: the whole object's when no argument
  was read yet (a call without a name when none was), and after a break the text that
  follows it too (the reader hands it on up to the end of the call), with
  :attr:`TextCall.problem` saying why. In ``json`` an object that never made a call (no name
  and arguments) is none at all: a JSON answer, not a call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import orjson

from inspector.core.base.model import OMITTED, ToolCallDelta
from inspector.core.calls.textjson import Member, MemberScan
from inspector.core.calls.toolcall import ToolCall

_ARGS: Final = frozenset({"arguments", "parameters"})


class TextCall(ToolCall):
    """A call written in the assistant text (see the module docstring)."""

    __slots__ = ("form", "problem")

    def __init__(self, slot: int, first: ToolCallDelta, form: str) -> None:
        super().__init__(slot, first)
        self.form = form
        """The format it was written in (``hermes``, ``mistral``, ``llama`` or ``json``)."""
        self.problem: str | None = None
        """What broke the call object's own syntax, or that it has no name."""
        a = first.arguments
        if type(a) is str and a:
            self.add_text(a)

    def add(self, d: ToolCallDelta) -> None:
        """Append one fragment (its id fills in a blank one: an id written late)."""
        if self.id is OMITTED and d.id is not OMITTED:
            self.id = d.id
        a = d.arguments
        self.take(d, a if type(a) is str else "")

    def finish(self, seq: int | None, reason: str, cut: bool) -> None:
        """Close the call (``cut``: the text ended inside it)."""
        if self.open:
            self.open = False
            self.close_seq = seq
            self.close_reason = reason
            self.truncated = cut


def fragment(seq: int, arguments: Any, name: Any = OMITTED, id: Any = OMITTED) -> ToolCallDelta:
    """A fragment read from text: no wire index, the first entry of its event."""
    return ToolCallDelta(seq, 0, OMITTED, id, name, arguments)


NewCall = Callable[[ToolCallDelta], TextCall]
"""Opens a call with its first fragment (the reader numbers and keeps it)."""


class CallObject:
    """One call object being read (see the module docstring)."""

    __slots__ = ("after", "args_seen", "call", "form", "held", "id_raw", "name", "name_raw", "new",
                 "raw", "scan", "seq")  # fmt: skip

    def __init__(self, seq: int, form: str, new: NewCall) -> None:
        self.form, self.new, self.seq = form, new, seq
        self.scan = MemberScan()
        self.call: TextCall | None = None
        self.name: Any = OMITTED
        self.name_raw: list[str] = []
        self.id_raw: list[str] = []
        self.held: list[tuple[int, str]] = []
        """Argument pieces (seq, text) read before the call opened."""
        self.raw: list[tuple[int, str]] = [(seq, "{")]
        """The object's text as written (seq, text), while its call is not open."""
        self.args_seen = False
        self.after: list[tuple[int, str]] | None = None
        """The object's text after its arguments ended (None before they did)."""

    @property
    def over(self) -> bool:
        """The closing brace was read, or the object's own syntax broke."""
        return self.scan.done or self.scan.error is not None

    def feed(self, seq: int, text: str, pos: int) -> int:
        """Read ``text`` from ``pos``; the index past what belongs to the object."""
        self.seq = seq
        out: list[Member] = []
        end = self.scan.feed(text, pos, out)
        if self.call is None or not self.call.length:
            self.raw.append((seq, text[pos:end]))
        start = pos
        for what, key, piece, at in out:
            self._member(what, key, piece)
            if what == "end" and key in _ARGS:
                self.after, start = [], at
        if self.after is not None and end > start:
            self.after.append((seq, text[start:end]))
        return end

    def _member(self, what: str, key: str, piece: str) -> None:
        if key in _ARGS:
            self.args_seen = True
            if what == "value" and self.call is not None:
                self.call.add(fragment(self.seq, piece))
            elif what == "value":
                self.held.append((self.seq, piece))
        elif key in ("name", "id"):
            raw = self.name_raw if key == "name" else self.id_raw
            if what == "value":
                raw.append(piece)
            elif key == "name":
                self.name = decoded("".join(raw))
            elif self.call is not None:
                self.call.add(fragment(self.seq, OMITTED, id=decoded("".join(raw))))
        if self.call is None and self._named():
            self._open()

    def _named(self) -> bool:
        """Can the call open: a name (and, for ``json``, an arguments key) was read."""
        return self.name is not OMITTED and (self.args_seen or self.form != "json")

    def _open(self) -> TextCall:
        ident = decoded("".join(self.id_raw)) if self.id_raw else OMITTED
        call = self.call = self.new(fragment(self.seq, OMITTED, self.name, ident))
        for seq, piece in self.held:
            call.add(fragment(seq, piece))
        self.held = []
        return call

    def close(self, seq: int | None, reason: str, cut: bool) -> TextCall | None:
        """The object is over (``cut``: the text ended inside it). Returns a broken call that
        is still open because it takes the text that follows, else None."""
        call = self.call
        if call is None and self._named():
            call = self._open()
        if call is None and self.form == "json":
            return None  # a JSON answer, not a call
        error = self.scan.error
        if call is None or (error is not None and not call.length):
            call = self._as_written(call)
        elif error is not None:  # after its arguments: what came between them and the break
            for s, t in self.after or ():
                call.add(fragment(s, t))
        call.problem = error or call.problem
        if error is not None and not cut:
            return call
        call.finish(seq, reason, cut)
        return None

    def _as_written(self, call: TextCall | None) -> TextCall:
        """The object's text as written becomes the arguments (of a new call without a name
        when none was read)."""
        pieces = [(s, t) for s, t in self.raw if t]
        if call is None:
            (seq, first), *pieces = pieces
            call = self.new(fragment(seq, first))
            call.problem = "the call object has no name"
        for seq, piece in pieces:
            call.add(fragment(seq, piece))
        return call


def decoded(raw: str) -> Any:
    """A name or id as written: the JSON value it is, or the text when it is no JSON."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw.strip()
