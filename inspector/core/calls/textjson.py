"""Reading a JSON value, or a tool-call object's members, from text that arrives in pieces.

:class:`ValueScan` follows one JSON value (an object, array, string or bare scalar) through
its pieces and says where it ends. :class:`MemberScan` reads a JSON object such as
``{"name": "f", "arguments": {…}}`` member by member: it hands out each member's key and the
raw text of its value, piece by piece, as it arrives, so a value's text can be streamed on
before the object is complete.

Invariants:
- Each character is looked at once, in arrival order: the work per piece is O(piece). Inside
  strings and nested values the scan jumps from one character that matters (a quote, a
  backslash, a bracket) to the next.
- Only the structure is followed: brackets, strings and escapes, and the object's own keys,
  colons and commas. A value's inside is not validated (its text is handed out as received;
  whoever assembles it judges the JSON). A malformed object's own syntax (a key that is no
  string, a missing colon or comma) stops the scan with an error message naming what was
  expected and the offset from the object's opening brace.
- Pure: no I/O, nothing shared between instances.
"""

from __future__ import annotations

import re
from typing import Final

import orjson

_NESTED: Final = re.compile(r'[\[\]{}"]')
_IN_STRING: Final = re.compile(r'["\\]')
_SCALAR_END: Final = re.compile(r"[\s,\]}]")
_SPACE: Final = frozenset(" \t\r\n")
_OPEN: Final = frozenset("[{")


class ValueScan:
    """Follows one JSON value from its first character to its end."""

    __slots__ = ("_depth", "_escape", "_kind", "_string", "done")

    def __init__(self, first: str) -> None:
        self._kind = "nested" if first in _OPEN else ("string" if first == '"' else "scalar")
        self._depth = 0
        self._string = False
        self._escape = False
        self.done = False
        """The value ended."""

    def feed(self, text: str, pos: int) -> int:
        """Follow ``text`` from ``pos`` (the value's first character on the first call); the
        index just past the value's end, or ``len(text)`` when it goes on (``done`` says
        which)."""
        if self._kind == "scalar":
            m = _SCALAR_END.search(text, pos)
            if m is None:
                return len(text)
            self.done = True
            return m.start()
        if self._kind == "string" and not self._string and not self._escape:
            self._string = True  # the opening quote
            pos += 1
        while pos < len(text):
            if self._escape:
                self._escape = False
                pos += 1
                continue
            if self._string:
                m = _IN_STRING.search(text, pos)
                if m is None:
                    return len(text)
                pos = m.end()
                if m.group() == "\\":
                    self._escape = True
                    continue
                self._string = False
                if self._kind == "string":
                    self.done = True
                    return pos
                continue
            m = _NESTED.search(text, pos)
            if m is None:
                return len(text)
            pos = m.end()
            c = m.group()
            if c == '"':
                self._string = True
            elif c in _OPEN:
                self._depth += 1
            else:
                self._depth -= 1
                if self._depth == 0:
                    self.done = True
                    return pos
        return len(text)


Member = tuple[str, str, str, int]
"""(what, key, text, at): ``("value", key, raw text, at)`` for a piece of a member's value,
``("end", key, "", at)`` when that value ended; ``at`` is the index in the text just past
it."""


class MemberScan:
    """Reads a JSON object's members as its text arrives (see the module docstring)."""

    __slots__ = ("_base", "_key", "_offset", "_state", "_value", "done", "error", "key")

    def __init__(self) -> None:
        self._state = "first"  # first | key | colon | value | in_value | after
        self._key: list[str] = []
        self._value: ValueScan | None = None
        self._offset = 1  # characters read so far, the opening brace included
        self._base = 0
        self.key = ""
        """The key whose value is being read (or was read last)."""
        self.done = False
        """The object's closing brace was read."""
        self.error: str | None = None
        """Why the object's own syntax stopped the scan (None while it reads well)."""

    def feed(self, text: str, pos: int, out: list[Member]) -> int:
        """Read ``text`` from ``pos`` (just past the opening brace on the first call),
        appending what it shows to ``out``; the index just past the closing brace, or where
        an error stopped it, or ``len(text)`` when the object goes on."""
        start = pos
        self._base = self._offset - start
        while pos < len(text) and not self.done and self.error is None:
            pos = self._step(text, pos, out)
        self._offset += pos - start
        return pos

    def _step(self, text: str, pos: int, out: list[Member]) -> int:
        state = self._state
        if state == "in_value":
            return self._in_value(text, pos, out)
        if state == "key":
            end = text.find('"', pos)
            while end >= 0 and _escaped(text, end, self._key):
                end = text.find('"', end + 1)
            if end < 0:
                self._key.append(text[pos:])
                return len(text)
            self._key.append(text[pos:end])
            self.key = _decoded(self._key)
            self._key = []
            self._state = "colon"
            return end + 1
        c = text[pos]
        if c in _SPACE:
            return pos + 1
        if state in ("first", "next") and c == '"':
            self._state = "key"
        elif c == "}" and state in ("first", "after"):
            self.done = True
        elif state == "colon" and c == ":":
            self._state = "value"
        elif state == "after" and c == ",":
            self._state = "next"
        elif state == "value":
            self._value = ValueScan(c)
            self._state = "in_value"
            return pos
        else:
            self.error = f"{_EXPECTED[state]} at offset {self._base + pos}, got {c!r}"
            return pos
        return pos + 1

    def _in_value(self, text: str, pos: int, out: list[Member]) -> int:
        value = self._value
        assert value is not None
        end = value.feed(text, pos)
        if end > pos:
            out.append(("value", self.key, text[pos:end], end))
        if value.done:
            out.append(("end", self.key, "", end))
            self._value = None
            self._state = "after"
        return end


_EXPECTED: Final = {
    "first": "expected a key in double quotes or }",
    "next": "expected a key in double quotes",
    "colon": "expected : after the key",
    "after": "expected , or } after a value",
}


def _escaped(text: str, quote: int, before: list[str]) -> bool:
    """Is the quote at ``text[quote]`` escaped (an odd run of backslashes before it, counted
    into the pieces already kept)?"""
    run = 0
    i = quote - 1
    while i >= 0 and text[i] == "\\":
        run += 1
        i -= 1
    if i < 0:
        joined = "".join(before)
        run += len(joined) - len(joined.rstrip("\\"))
    return run % 2 == 1


def _decoded(raw: list[str]) -> str:
    """A key's text as JSON decodes it (its escapes resolved; as written when they are not
    valid escapes)."""
    text = "".join(raw)
    if "\\" not in text:
        return text
    try:
        value = orjson.loads(f'"{text}"')
    except orjson.JSONDecodeError:
        return text
    return value if isinstance(value, str) else text
