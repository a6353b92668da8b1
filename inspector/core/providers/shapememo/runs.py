"""A shape (:mod:`.shape`) applied to a run of events at once: what
:meth:`Shape.map` gives for each, event by event, in a few passes in C over the run.

A decoder's plain run (:class:`~inspector.core.events.plain.PlainRun`) hands the dialect its
events' data as one list of strings; :func:`map_run` takes as many of them from a position on
as fit the current shape, each mapped to the very delta :meth:`Shape.map` would make of it, and
stops at the first that does not (the dialect maps that one on its full path, which may change
the shape, and offers the rest again).

Invariants:
- For every value it takes, the delta equals, field by field, the one :meth:`Shape.map` makes
  of the event: same ``seq``, the shape's fields, and the argument hole as ``map`` reads it (a
  plain JSON string body as it is, anything else through ``orjson.loads``); the shape's
  ``hits`` grows by the number taken, as ``map`` would count them. It is an instance of a
  ``shared`` subclass of :class:`ToolCallDelta` (:func:`_deltas`: the class holds the
  shape's fields): read a delta's kind, or use ``isinstance``, never
  ``type(d) is ToolCallDelta``.
- It takes a value only where ``map`` would answer: the data starts with the shape's head,
  ends with its tail, is at least as long as both, and its hole is a JSON string body. The
  first value that fails any of these ends the run (none after it is taken).
- Only a plain :class:`Shape` (the argument hole alone) is applied to a run; a
  :class:`HoledShape` maps event by event.
"""

from __future__ import annotations

import re
from itertools import compress, repeat
from operator import itemgetter, not_, or_
from typing import Any

import orjson

from inspector.core.base.model import AnyDelta, ToolCallDelta
from inspector.core.providers.shapememo.shape import Shape

__all__ = ["map_run"]

_loads = orjson.loads
_ESCAPED = re.compile(r'["\\]').search
"""A hole holding a quote or a backslash is no plain string body: it is decoded."""
_QUOTED = '"{}"'.format


FIRST = 8
"""Values tried at once first; when they all fit, the rest of the run is tried at once. A
shape that fits every other event (two calls interleaved) costs a short window per event,
not a pass over the rest of the run each time."""


def map_run(shape: Shape, values: list[str], start: int, seq: int, out: list[AnyDelta]) -> int:
    """Append the deltas of ``values[start:]`` (events ``seq``.. ) that fit ``shape``, as many
    in a row as fit; return how many (0: the first does not fit)."""
    first = values[start]
    if not (first.startswith(shape.head) and first.endswith(shape.tail)):
        return 0
    taken = _window(shape, values[start : start + FIRST], seq, out)
    if taken == FIRST and start + taken < len(values):
        taken += _window(shape, values[start + taken :], seq + taken, out)
    return taken


def _window(shape: Shape, vals: list[str], seq: int, out: list[AnyDelta]) -> int:
    """:func:`map_run` over ``vals`` (events ``seq``..): how many it took."""
    head, tail = shape.head, shape.tail
    k = _prefix(list(map(str.startswith, vals, repeat(head))))
    if k < len(vals):
        vals = vals[:k]
    k = _prefix(list(map(str.endswith, vals, repeat(tail))))
    if k < len(vals):
        vals = vals[:k]
    if not vals:
        return 0
    least = shape.lh + shape.lt
    if min(map(len, vals)) < least:  # the head and the tail overlap in one of them
        k = _prefix([len(v) >= least for v in vals])
        vals = vals[:k]
    holes = _arguments(vals, shape)
    k = len(holes)
    if not k:
        return 0
    made = shape.runs or _deltas(shape)
    out += map(made, range(seq, seq + k), repeat(shape.index), holes)
    shape.hits += k
    return k


def _arguments(vals: list[str], shape: Shape) -> list[str]:
    """The arguments of ``vals`` (each the shape's head, a hole, its tail): each hole's value
    as a JSON string body, for as many leading holes as are such bodies.

    At once, in one ``orjson.loads`` of the holes joined as a JSON array of strings, when that
    array has exactly one string per hole and no hole ends with an escaping backslash
    (backslashes pair up left to right: with the pairs taken out, each one left escapes the
    next character). Then each string is its hole: a separator's quotes are not escaped, so
    no string runs over one (two holes cannot merge), and an unescaped quote inside a hole
    would end its string early and make more strings than holes, or no JSON at all; the
    parser refuses any other flaw (a bad escape, a raw control character) in the whole.
    Anything else hole by hole (:func:`_decoded`)."""
    holes = list(map(itemgetter(slice(shape.lh, -shape.lt or None)), vals))
    n = len(holes)
    body = '","'.join(holes)
    bare = body.replace("\\\\", "") if "\\" in body else body
    if '\\","' not in bare and not bare.endswith("\\"):
        try:
            args: list[str] = _loads('["' + body + '"]')
        except orjson.JSONDecodeError:
            pass
        else:
            if len(args) == n:
                return args
    k = _decoded(holes)
    return holes[:k] if k < n else holes


def _deltas(shape: Shape) -> type[ToolCallDelta]:
    """The shape's :class:`ToolCallDelta` class: every field but ``seq``, ``index`` and
    ``arguments`` is the shape's, held by the class (an instance sets three slots, not ten;
    the others read through to the class). Equal, field by field, to the delta
    :meth:`Shape.map` makes. Shapes with the same such fields (every long call's
    continuations: no id, no name, no type, no extra) share one class, from a table of at
    most ``CLASSES``: a session of 200,000 long calls makes one class, not one each."""
    key: tuple[Any, ...] = (shape.id, shape.name, shape.type)
    try:
        made = _CLASSES.get(key) if shape.extra is None else None
    except TypeError:  # an unhashable field: a class of its own
        key, made = (), None
    if made is None:
        fields = {"id": shape.id, "name": shape.name, "type": shape.type, "extra": shape.extra}
        fields |= {"pos": 0, "args_object": False, "final": False, "shared": True}
        made = type("ShapeDelta", (ToolCallDelta,), {"__slots__": (), "__init__": _init, **fields})
        if key and shape.extra is None:
            if len(_CLASSES) >= CLASSES:
                _CLASSES.clear()
            _CLASSES[key] = made
    shape.runs = made
    return made


CLASSES = 256
"""Delta classes kept for shapes to come (a class is some 2 KB)."""
_CLASSES: dict[tuple[Any, ...], type[ToolCallDelta]] = {}


def _init(self: ToolCallDelta, seq: int, index: Any, arguments: str) -> None:
    self.seq = seq
    self.index = index
    self.arguments = arguments


def _prefix(fits: list[bool]) -> int:
    """How many leading entries of ``fits`` are true."""
    try:
        return fits.index(False)
    except ValueError:
        return len(fits)


def _decoded(holes: list[str]) -> int:
    """Replace each hole that is no plain string body by its decoded value; return how many
    leading holes are JSON string bodies (those after the first that is not are left as
    they are)."""
    joined = "".join(holes)
    if _ESCAPED(joined) is None and joined.isprintable():
        return len(holes)
    odd = list(
        compress(
            range(len(holes)),
            map(or_, map(bool, map(_ESCAPED, holes)), map(not_, map(str.isprintable, holes))),
        )
    )
    try:
        decoded = list(map(_loads, map(_QUOTED, map(holes.__getitem__, odd))))
    except orjson.JSONDecodeError:
        decoded = []
        for i in odd:
            try:
                decoded.append(_loads(_QUOTED(holes[i])))
            except orjson.JSONDecodeError:
                odd = odd[: len(decoded)]
                for j, value in zip(odd, decoded, strict=True):
                    holes[j] = value
                return i
    for j, value in zip(odd, decoded, strict=True):
        holes[j] = value
    return len(holes)
