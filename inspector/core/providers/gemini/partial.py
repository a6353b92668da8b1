"""Gemini 3 streamed function-call arguments (Vertex ``partialArgs``) read as argument text.

With ``toolConfig.functionCallingConfig.streamFunctionCallArguments`` Vertex AI sends one call
over several ``functionCall`` parts: the first names the call (``willContinue: true``), the
next carry ``partialArgs``, JSON-path leaf updates (``{"jsonPath": "$.a[0].b",
"stringValue" | "numberValue" | "boolValue" | "nullValue": …, "willContinue"?}``), and a part
whose ``willContinue`` is not true (often an empty ``functionCall: {}``) ends it. A string
leaf with ``willContinue: true`` goes on in the next update at the same path (the Vertex
``PartialArg`` reference; the Vercel AI SDK's ``GoogleJSONAccumulator`` reads them so).

:class:`PartialArgs` turns one call's updates into the text an accumulator appends: each
update yields the JSON text that navigates from the last leaf to the new one (closing and
opening objects and arrays, a comma, the key) and writes the value; a string that goes on is
left open and its next pieces are appended escaped; :meth:`PartialArgs.end` closes what is
open.

Invariants:
- Concatenating every text :meth:`PartialArgs.add` returned and then :meth:`PartialArgs.end`
  gives the arguments object assembled from the updates, serialised compactly (as
  ``JSON.stringify`` writes it) with keys in the order they first arrived, whenever the paths
  arrive in document order (a model writes JSON left to right, so Vertex sends them so).
- A path that goes back into an object or array already closed, or writes a leaf again,
  cannot be appended to text already sent: it is written where it arrives (a repeated key,
  which parses with the later value winning, or one more array element) and
  :meth:`PartialArgs.add` says so (``reopened``). An array index past the next one is
  preceded by ``null`` for each index skipped, as the assembled array would hold.
- Paths are read as RFC 9535 JSON paths made of names and indexes (``$.a``, ``$['a b']``,
  ``$["a"]``, ``$.a[0]``) and shown normalised (:func:`normal_path`): ``$.a[0].b``, with a
  name that is no identifier in brackets (``$['a b']``). Anything else is no path
  (:func:`parse_path` returns None) and its update is left out by the caller.
- Pure: no I/O; one instance per streamed call, kept by the dialect of one body.
- :func:`updates_of` reads a part's ``partialArgs`` as untrusted wire data: a field of the
  wrong type (``partialArgs`` no array, an update no object, ``jsonPath`` no string or no
  path, a value of the wrong kind) is one ``wire_field_type`` problem and that update is left
  out; an update with no value at all is left out silently.
"""

from __future__ import annotations

import re
from typing import Any, Final

import orjson

from inspector.core.base.model import AnyDelta
from inspector.core.quirks.events.wrongtype import wrong_type

Segment = str | int
"""One step of a path: an object member's name or an array index."""

_IDENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STEP: Final = re.compile(
    r"\.((?:[A-Za-z_]|[^\x00-\x7f])(?:[A-Za-z0-9_]|[^\x00-\x7f])*)"  # .name (RFC 9535)
    r"|\[(\d+)\]"  # [0]
    r"|\['((?:[^'\\]|\\.)*)'\]"  # ['name']
    r'|\["((?:[^"\\]|\\.)*)"\]'  # ["name"]
)


def parse_path(text: str) -> tuple[Segment, ...] | None:
    """The steps of a JSON path (``$.a[0]['b c']`` -> ``("a", 0, "b c")``), or None when it
    is no path of names and indexes below the root."""
    if not text.startswith("$"):
        return None
    steps: list[Segment] = []
    pos = 1
    while pos < len(text):
        m = _STEP.match(text, pos)
        if m is None:
            return None
        name, index, single, double = m.groups()
        if index is not None:
            steps.append(int(index))
        elif name is not None:
            steps.append(name)
        else:
            quoted = single if single is not None else double
            steps.append(re.sub(r"\\(.)", r"\1", quoted))
        pos = m.end()
    return tuple(steps) if steps else None


def normal_path(steps: tuple[Segment, ...]) -> str:
    """``$.a[0].b``: names as ``.name`` when they are identifiers, else ``['name']``."""
    out = ["$"]
    for step in steps:
        if isinstance(step, int):
            out.append(f"[{step}]")
        elif _IDENT.fullmatch(step):
            out.append("." + step)
        else:
            out.append("['" + step.replace("\\", "\\\\").replace("'", "\\'") + "']")
    return "".join(out)


Update = tuple[tuple[Segment, ...], str, bool, bool]
"""(path steps, value, is a string piece, the string goes on): one leaf update, as
:meth:`PartialArgs.add` takes it (a value that is no string is its JSON text)."""

_KINDS: Final = (
    ("stringValue", str, "string"),
    ("numberValue", (int, float), "number"),
    ("boolValue", bool, "boolean"),
)


def updates_of(fc: dict[str, Any], seq: int, path: str, out: list[AnyDelta]) -> list[Update]:
    """The leaf updates of a ``functionCall`` part (``path`` prefixes its fields' paths in
    the problems appended to ``out``)."""
    raw = fc.get("partialArgs")
    if raw is None:
        return []
    if type(raw) is not list:
        out.append(wrong_type(seq, path + "partialArgs", "array", raw, fc))
        return []
    updates: list[Update] = []
    for i, arg in enumerate(raw):
        where = f"{path}partialArgs[{i}]"
        if type(arg) is not dict:
            out.append(wrong_type(seq, where, "object", arg, fc))
            continue
        text = arg.get("jsonPath")
        steps = parse_path(text) if type(text) is str else None
        if steps is None:
            out.append(wrong_type(seq, where + ".jsonPath", "JSON path", text, arg))
            continue
        update = _update(arg, steps, seq, where, out)
        if update is not None:
            updates.append(update)
    return updates


def _update(
    arg: dict[str, Any], steps: tuple[Segment, ...], seq: int, where: str, out: list[AnyDelta]
) -> Update | None:
    more = arg.get("willContinue") is True
    for key, kind, expected in _KINDS:
        if key not in arg:
            continue
        value = arg[key]
        if not isinstance(value, kind) or (key == "numberValue" and type(value) is bool):
            out.append(wrong_type(seq, f"{where}.{key}", expected, value, arg))
            return None
        if type(value) is str:
            return steps, value, True, more
        return steps, _json(value), False, False
    if "nullValue" in arg:
        return steps, "null", False, False
    return None


def _json(value: object) -> str:
    return orjson.dumps(value).decode()


class _Open:
    """An object or array whose closing bracket is not written yet."""

    __slots__ = ("array", "count", "path")

    def __init__(self, path: tuple[Segment, ...], array: bool) -> None:
        self.path = path
        self.array = array
        self.count = 0
        """Members (or elements, skipped ones included) written so far."""


class PartialArgs:
    """One streamed call's updates -> the argument text they append (module docstring)."""

    def __init__(self) -> None:
        self._stack: list[_Open] = []
        self._string: tuple[Segment, ...] | None = None
        self._closed: set[tuple[Segment, ...]] = set()
        self._leaves: set[tuple[Segment, ...]] = set()

    def add(self, steps: tuple[Segment, ...], value: str, string: bool, more: bool) -> tuple[
        str, bool
    ]:  # fmt: skip
        """(the text that writes ``value`` at ``steps``, whether it reopens what was closed).

        ``value`` is a string leaf's piece when ``string`` (``more``: the string goes on in
        the next update at the same path), else the JSON text of a number, boolean or null.
        """
        if string and self._string == steps:  # the open string goes on
            text = _json(value)[1:-1]
            if not more:
                text += '"'
                self._string = None
            return text, False
        out: list[str] = []
        if self._string is not None:
            out.append('"')
            self._string = None
        if not self._stack:
            out.append("{")
            self._stack.append(_Open((), False))
        reopened = self._navigate(steps, out)
        if steps in self._leaves:
            reopened = True
        self._leaves.add(steps)
        reopened |= self._member(steps[-1], out)
        if string:
            out.append(_json(value)[:-1] if more else _json(value))
            if more:
                self._string = steps
        else:
            out.append(value)
        return "".join(out), reopened

    def end(self) -> str:
        """The text that closes whatever is open ("" when nothing was written)."""
        out = ['"'] if self._string is not None else []
        self._string = None
        while self._stack:
            done = self._stack.pop()
            self._closed.add(done.path)
            out.append("]" if done.array else "}")
        return "".join(out)

    def _navigate(self, steps: tuple[Segment, ...], out: list[str]) -> bool:
        """Close the containers ``steps`` is not in, open those it is in; True when one of
        them was closed before."""
        stack = self._stack
        keep = 1
        while keep < len(stack) and keep < len(steps):
            entry = stack[keep]
            if entry.path != steps[:keep] or entry.array != isinstance(steps[keep], int):
                break
            keep += 1
        while len(stack) > keep:
            done = stack.pop()
            self._closed.add(done.path)
            out.append("]" if done.array else "}")
        reopened = False
        for depth in range(len(stack), len(steps)):
            reopened |= self._member(steps[depth - 1], out)
            array = isinstance(steps[depth], int)
            out.append("[" if array else "{")
            path = steps[:depth]
            reopened |= path in self._closed
            stack.append(_Open(path, array))
        return reopened

    def _member(self, step: Segment, out: list[str]) -> bool:
        """The comma, key (or skipped elements) before a member of the innermost container;
        True when an array index was written before."""
        parent = self._stack[-1]
        again = False
        if parent.array and isinstance(step, int):
            again = step < parent.count
            for _ in range(parent.count, step):  # skipped indexes hold null
                out.append(",null" if parent.count else "null")
                parent.count += 1
        if parent.count:
            out.append(",")
        if not parent.array:
            out.append(_json(str(step)) + ":")
        parent.count += 1
        return again
