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
- An object whose own syntax breaks, or that ends without a name, is (after a marker) a call
  without a name whose arguments are the object's text as written, with :attr:`TextCall.problem`
  saying why; in ``json`` it is no call at all (a JSON answer, not a call).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import orjson

from inspector.core.base.model import OMITTED, ToolCallDelta
from inspector.core.calls.accumulator import ToolCall
from inspector.core.calls.textjson import Member, MemberScan

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
        self.add(first)

    def add(self, d: ToolCallDelta) -> None:
        """Append one fragment (its id fills in a blank one: an id written late)."""
        self.fragments.append(d)
        self.accepted.append(True)
        if self.id is OMITTED and d.id is not OMITTED:
            self.id = d.id
        a = d.arguments
        if type(a) is str and a:
            self.parts.append(a)
            self.length += len(a)
            self._joined = None

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

    __slots__ = ("args_seen", "call", "form", "held", "id_raw", "name", "name_raw", "new", "raw",
                 "scan", "seq")  # fmt: skip

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

    @property
    def over(self) -> bool:
        """The closing brace was read, or the object's own syntax broke."""
        return self.scan.done or self.scan.error is not None

    def feed(self, seq: int, text: str, pos: int) -> int:
        """Read ``text`` from ``pos``; the index past what belongs to the object."""
        self.seq = seq
        out: list[Member] = []
        end = self.scan.feed(text, pos, out)
        if self.call is None:
            self.raw.append((seq, text[pos:end]))
        for what, key, piece in out:
            self._member(what, key, piece)
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
        self.held, self.raw = [], []
        return call

    def close(self, seq: int | None, reason: str, cut: bool) -> TextCall | None:
        """The object is over (``cut``: the text ended inside it). Returns a broken call that
        is still open because it takes the text that follows, else None."""
        call = self.call
        if call is None and self._named():
            call = self._open()
        if call is None and self.form != "json":
            pieces = [(s, t) for s, t in self.raw if t]  # no name: the text as written
            call = self.new(fragment(pieces[0][0], pieces[0][1]))
            for s, t in pieces[1:]:
                call.add(fragment(s, t))
            call.problem = "the call object has no name"
        if call is None:
            return None  # a JSON answer, not a call
        error = self.scan.error
        call.problem = error or call.problem
        if error is not None and call.name is OMITTED and not cut:
            return call
        call.finish(seq, reason, cut)
        return None


def decoded(raw: str) -> Any:
    """A name or id as written: the JSON value it is, or the text when it is no JSON."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw.strip()
