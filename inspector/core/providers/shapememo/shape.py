"""The shape memo: an event whose data differs from an already-mapped one only in its argument
text (and in values the dialect never reads) is mapped without decoding it, exactly as the full
path would map it.

A :class:`Shape` is the raw data of one event cut around its holes: the body of the argument
string (``"arguments"`` of a Chat tool call, ``"delta"`` of a Responses arguments event), the
values of top-level keys the dialect never reads (``obfuscation``, ``sequence_number``), and
(Chat) the call's ``index`` when it is the only ``"index"`` with its value. Its texts are
``parts[0] + hole + parts[1] + … + parts[-1]``. It holds the one :class:`ToolCallDelta` the
full path made of that event, minus ``seq``, ``arguments`` and (with an index hole) ``index``.

Invariants:
- A shape exists only if it was proved: the full path, run on the event's data with sentinels
  in the holes (two sets), gave exactly one ToolCallDelta equal to the shape's with the argument
  sentinel as arguments, and each other hole read back as its key's value. The sentinels begin
  with ``~``, which JSON allows only inside a string, and hold no ``"``, ``\\`` or control
  character; the number sentinels are plain digit runs.
- :meth:`Shape.map` answers only for data that decomposes as ``parts`` around holes that each
  pass their check: the argument hole is a JSON string body (plain text, else
  ``orjson.loads('"' + M + '"')`` succeeds), a string hole likewise, a number or index hole
  ASCII digits without a leading zero (at most 18: orjson reads them as an int). Anything
  else is None: the full path, unchanged.
- The dialect never reads the keys of the other holes (:data:`IGNORED`).

Why a match is exact, whatever split was found (an unescaped ``"`` in M, a trailing
backslash, control characters, lone surrogates, the parts' own text inside M, whitespace
around colons): a JSON lexer reads left to right, so its state after ``parts[0]`` is the one it
had in the proof, inside a string (the sentinel came back as a string's whole value, and the
``~`` would not lex outside one). A hole that passes its check is consumed entirely within
that string and the next ``"`` of the parts closes it (a number hole: a whole number token,
ended by the part's first character, as the proofs showed). So every token outside the holes
is the proof's, and the decoded object is the proof's object with the hole values replaced.
Both proofs saw the argument hole's text come back as ``arguments``: that token is the
argument value (a key, or any other token, would not follow the sentinel), and the dialect
passes a string argument on untouched. Likewise both proofs saw the index hole's number come
back as the delta's index (an int, passed on untouched). The other holes are values of keys it
never reads. A fragment decoded on its own is decoded by the same string parser as in the
whole document.

Churn costs nothing measurable: a shape is built only after the full path mapped an event to
one such delta, from data of at most :data:`LONGEST` characters; a shape that missed is kept
once if it hit since its last miss (and through its first miss unless it came from a call's
opening chunk), else dropped. Dropping a shape with fewer than :data:`PAYS` hits (or failing
to build one) skips candidate events before the next try, 0, 0, 1, 3, 7 … after 1, 2, 3, 4,
5 … such failures in a row; a shape that paid resets the count. A stream whose every chunk
differs builds about log2(n) shapes, and so does a stream of items too short to pay for one
each (Responses: each item's deltas name it); a call's opening chunk (its id and name) gives
a shape that rarely hits and costs no skip. Short Chat calls share one shape through the
index hole.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import orjson

from inspector.core.base.model import OMITTED, AnyDelta, SSEEvent, ToolCallDelta

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError

IGNORED = ("obfuscation", "sequence_number")
"""Top-level keys neither dialect reads: their values may differ between an event and its
shape (OpenAI pads each chunk with a random ``obfuscation``; Responses numbers each event)."""

LONGEST = 8192
"""No shape is built from longer data: a search and two proofs over one huge line (a whole
call's arguments in one chunk) would cost several decodes of it, and such chunks rarely
repeat."""

Run = Callable[[SSEEvent], list[AnyDelta]]
"""A dialect's full path (no memo): an event -> its deltas."""

ARGS, TEXT, DIGITS, INDEX = 0, 1, 2, 3
"""Hole kinds: the argument string's body, another string's body, a non-negative integer,
the call's index (a non-negative integer the delta carries)."""

PAYS = 16
"""Hits that pay for a shape's build (two proofs, a search for each hole, worth several
decodes) with room to spare: a shape dropped with fewer counts as a failure for the
backoff."""

_SENTINELS = (
    {ARGS: "~shape proof 0~", TEXT: "~pad 0~", DIGITS: "7", INDEX: "5"},
    {ARGS: "~é shape-proof 1 ~~", TEXT: "~pad-1 é~", DIGITS: "1234567", INDEX: "987654"},
)
_STRING = r'\s*:\s*"((?:[^"\\]|\\.)*)"'
_SEARCH: dict[tuple[str, str], re.Pattern[str]] = {}
_NUMBER = r"\s*:\s*(\d+)(?![\d.eE])"


def _string_body(hole: str) -> Any:
    """The value of a JSON string body, or None when it is not one."""
    if '"' not in hole and "\\" not in hole and hole.isprintable():
        return hole
    try:
        return _loads('"' + hole + '"')
    except _JSONDecodeError:
        return None


def _number(hole: str) -> bool:
    """``hole`` is a JSON integer orjson reads as an int: digits, no leading zero, <= 18."""
    ok = hole.isascii() and hole.isdigit() and len(hole) <= 18
    return ok and (hole[0] != "0" or len(hole) == 1)


class Shape:
    """One proved event shape with its argument hole only (see the module docstring)."""

    __slots__ = (
        "extra", "head", "hits", "id", "index", "lh", "lt", "name", "runs", "seen", "tail", "type",
    )  # fmt: skip

    def __init__(self, parts: list[str], proto: ToolCallDelta) -> None:
        self.head = parts[0]
        """The text before the first hole."""
        self.tail = parts[-1]
        """The text after the last hole."""
        self.lh = len(self.head)
        self.lt = len(self.tail)
        self.index, self.id, self.name = proto.index, proto.id, proto.name  # the delta's fields
        self.type, self.extra = proto.type, proto.extra
        self.hits = 0
        """Events mapped by this shape."""
        opening = proto.id is not OMITTED or proto.name is not OMITTED
        self.runs: type[ToolCallDelta] | None = None
        """The deltas :mod:`.runs` makes for this shape (made at its first run)."""
        self.seen = 0 if opening else -1
        """``hits`` at its last miss: a shape is kept through one miss after a hit, and (-1
        before its first miss) through its first miss unless it carries an id or a name (a
        call's opening chunk, which the next chunk never fits; the next call's opening chunk
        may come between a continuation's shape and its first fit)."""

    def map(self, ev: SSEEvent) -> ToolCallDelta | None:
        """The delta for ``ev`` if its data fits the shape, else None (not a decode)."""
        data = ev.data
        if not (data.startswith(self.head) and data.endswith(self.tail)):
            return None
        end = len(data) - self.lt
        if end < self.lh:
            return None
        m = data[self.lh : end]  # _delta(), inlined: the hot path
        if '"' in m or "\\" in m or not m.isprintable():
            try:
                m = _loads('"' + m + '"')
            except _JSONDecodeError:
                return None
        self.hits += 1
        return ToolCallDelta(
            ev.seq, 0, self.index, self.id, self.name, m, self.type, False, False, self.extra
        )

    def _delta(self, seq: int, m: str, index: Any) -> ToolCallDelta | None:
        """The delta with argument hole ``m``, or None when ``m`` is not a JSON string body."""
        if '"' in m or "\\" in m or not m.isprintable():
            try:
                m = _loads('"' + m + '"')
            except _JSONDecodeError:
                return None
        self.hits += 1
        return ToolCallDelta(
            seq, 0, index, self.id, self.name, m, self.type, False, False, self.extra
        )


class HoledShape(Shape):
    """A shape with holes besides the argument one, or tied to an ``event:`` name."""

    __slots__ = ("after", "before", "event")

    def __init__(
        self, parts: list[str], kinds: list[int], event: str | None, proto: ToolCallDelta
    ) -> None:
        super().__init__(parts, proto)
        at = kinds.index(ARGS)
        self.before = tuple(zip(parts[1 : at + 1], kinds[:at], strict=True))
        """(text after the hole, kind) of each hole before the argument hole, in order."""
        self.after = tuple(
            zip(reversed(parts[at + 1 : -1]), reversed(kinds[at + 1 :]), strict=True)
        )
        """(text before the hole, kind) of each hole after it, from the last."""
        self.event = event
        """The ``event:`` name the data must come with (None: the dialect ignores it)."""

    def map(self, ev: SSEEvent) -> ToolCallDelta | None:
        """The delta for ``ev`` if its data fits the shape, else None (not a decode)."""
        data = ev.data
        if not (data.startswith(self.head) and data.endswith(self.tail)):
            return None
        start = self.lh
        end = len(data) - self.lt
        if end < start or (self.event is not None and ev.event != self.event):
            return None
        index = self.index
        for text, kind in self.before:
            i = data.find(text, start, end)
            if i < 0:
                return None
            hole = data[start:i]
            if kind == INDEX and _number(hole):
                index = int(hole)
            elif not _fits(kind, hole):
                return None
            start = i + len(text)
        for text, kind in self.after:
            i = data.rfind(text, start, end)
            if i < 0:
                return None
            hole = data[i + len(text) : end]
            if kind == INDEX and _number(hole):
                index = int(hole)
            elif not _fits(kind, hole):
                return None
            end = i
        return self._delta(ev.seq, data[start:end], index)


def _fits(kind: int, hole: str) -> bool:
    """A non-argument hole passes its check (an index hole is checked by its caller)."""
    if kind == TEXT:
        return _string_body(hole) is not None
    return kind == DIGITS and _number(hole)


class ShapeMemo:
    """One dialect's shape builder and its backoff (see the module docstring).

    ``args_key`` is the key of the argument string; ``index_key`` the key of the call's index
    when a shape may take it as a hole (short calls then share one shape; long calls get plain
    shapes, which map faster); ``fits`` says which of the dialect's
    deltas a shape may stand for; ``event`` says whether the dialect reads the ``event:``
    field. ``run``, passed to each build (the memo holds no reference to its dialect), maps an
    event through the dialect's full path (no memo) and returns its deltas."""

    __slots__ = ("args_key", "built", "event", "fits", "index_key", "level", "short", "skip")

    def __init__(
        self,
        args_key: str,
        index_key: str | None,
        fits: Callable[[ToolCallDelta], bool],
        event: bool,
    ) -> None:
        self.args_key = args_key
        self.index_key = index_key
        self.short = False
        """The last shape dropped did not pay: the next takes the index as a hole."""
        self.fits = fits
        self.event = event
        self.level = 0
        """Shapes dropped (or not built) in a row without a hit."""
        self.skip = 0
        """Candidate events still to skip before the next try."""
        self.built = 0
        """Shapes built so far."""

    def after(
        self, ev: SSEEvent, delta: ToolCallDelta, obj: dict[str, Any], shape: Shape | None, run: Run
    ) -> Shape | None:
        """The shape to keep after the full path mapped ``ev`` to the one delta ``delta``
        (``shape``, the current one, missed it)."""
        if shape is not None:
            if shape.hits > shape.seen:
                shape.seen = shape.hits
                if shape.hits >= PAYS:
                    self.level = 0
                return shape
            self.short = shape.hits < PAYS
            self._backoff(0 if shape.hits >= PAYS else self.level + 1)
        if self.skip:
            self.skip -= 1
            return None
        new = self.build(ev, delta, obj, run)
        if new is None:
            self._backoff(self.level + 1)
        else:
            self.built += 1
        return new

    def _backoff(self, level: int) -> None:
        """After ``level`` failures in a row, skip 0, 0, 1, 3, 7 … candidates: the first shape
        of a call (the chunk with its id and name) rarely hits, and costs no skip."""
        self.level = level
        self.skip = (1 << (level - 1)) - 1 if level else 0

    def build(
        self, ev: SSEEvent, delta: ToolCallDelta, obj: dict[str, Any], run: Run
    ) -> Shape | None:
        """A proved shape for ``ev``, or None."""
        a = delta.arguments
        if type(a) is not str or delta.args_object or delta.final or delta.pos:
            return None
        data = ev.data
        if len(data) > LONGEST:
            return None
        if not self.fits(delta):
            return None
        holes = [(_at(data, self.args_key, _STRING, a), ARGS)]
        index = delta.index
        if self.short and self.index_key is not None and type(index) is int and index >= 0:
            span = _at(data, self.index_key, _NUMBER, index)
            if span is not None:  # else the index is part of the shape's text
                holes.append((span, INDEX))
        for key in IGNORED:
            value = obj.get(key, OMITTED)
            if type(value) is str:
                holes.append((_at(data, key, _STRING, value), TEXT))
            elif type(value) is int and value >= 0:
                holes.append((_at(data, key, _NUMBER, value), DIGITS))
            elif value is not OMITTED:
                return None
        if any(span is None for span, _ in holes):
            return None
        spans = sorted((span, kind) for span, kind in holes if span is not None)
        parts, kinds, last = [], [], 0
        for (start, end), kind in spans:
            if start < last:
                return None
            parts.append(data[last:start])
            kinds.append(kind)
            last = end
        parts.append(data[last:])
        if not _proved(ev, parts, kinds, delta, run):
            return None
        if len(kinds) == 1 and not self.event:
            return Shape(parts, delta)
        return HoledShape(parts, kinds, ev.event if self.event else None, delta)


def _proved(
    ev: SSEEvent, parts: list[str], kinds: list[int], delta: ToolCallDelta, run: Run
) -> bool:
    """The full path maps both sentinel substitutions as the shape would."""
    for sentinel in _SENTINELS:
        text = parts[0] + "".join(sentinel[k] + p for k, p in zip(kinds, parts[1:], strict=True))
        probe = SSEEvent(ev.seq, ev.kind, ev.event, text, ev.id, ev.retry, ev.start, ev.end)
        got = run(probe)
        index = int(sentinel[INDEX]) if INDEX in kinds else delta.index
        if len(got) != 1 or not _same(got[0], delta, sentinel[ARGS], index):
            return False
        try:
            obj = _loads(text)
        except _JSONDecodeError:
            return False
        if type(obj) is not dict:
            return False
        for key in IGNORED:
            if key in obj:
                want = sentinel[TEXT] if type(obj[key]) is str else int(sentinel[DIGITS])
                if obj[key] != want or type(obj[key]) is not type(want):
                    return False
        if sum(k in (TEXT, DIGITS) for k in kinds) != sum(key in obj for key in IGNORED):
            return False
    return True


def _at(data: str, key: str, pattern: str, value: Any) -> tuple[int, int] | None:
    """The span of the one ``"key": value`` literal in ``data`` whose value is ``value``."""
    found = None
    search = _SEARCH.get((key, pattern))
    if search is None:
        search = _SEARCH[key, pattern] = re.compile('"' + re.escape(key) + '"' + pattern)
    for m in search.finditer(data):
        body = m.group(1)
        got = int(body) if pattern is _NUMBER else _string_body(body)
        if got == value and type(got) is type(value):
            if found is not None:
                return None
            found = m.span(1)
    return found


def _same(got: AnyDelta, want: ToolCallDelta, arguments: str, index: Any) -> bool:
    """``got`` is ``want`` with ``arguments`` and ``index``, field by field."""
    return (
        type(got) is ToolCallDelta
        and got.seq == want.seq
        and got.pos == want.pos
        and got.index == index
        and type(got.index) is type(index)
        and got.id == want.id
        and got.name == want.name
        and got.type == want.type
        and got.arguments == arguments
        and got.args_object is want.args_object
        and got.final is want.final
        and got.extra == want.extra
    )
