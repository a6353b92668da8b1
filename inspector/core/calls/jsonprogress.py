"""Incremental JSON progress tracker for tool-call arguments streamed fragment by fragment.

A push-down automaton over RFC 8259 JSON, as strict as orjson: no NaN/Infinity, no leading
zeros, whitespace is only space, tab, LF and CR, no control characters inside strings.
``\\uXXXX`` escapes are not checked for surrogate pairing (like Python's ``json``).

Invariants:
- ``feed(text)`` costs O(len(text)) and never re-parses the buffer: all that is carried between
  fragments is the stack of open containers and one automaton state. Punctuation goes through
  a transition table one character at a time; runs (string bodies, whitespace after a newline,
  whole runs of array elements / object members nested at most two deep) are skipped by
  precompiled regexes.
- Fragmentation-independence: every split of the same text (inside an escape, a ``\\uXXXX``, a
  number, a literal, between a key and its colon) gives the same state and the same error.
- Error offsets are positions in the *whole* buffer: ``offset`` in UTF-8 bytes, ``char_offset``
  in characters. An error points at the first character after which no continuation can make
  the text valid (``text[:k]`` has no error, ``text[:k + 1]`` has one), or at end of input.
- The first error is sticky: later input is only counted (``length``/``byte_length``).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Final, Protocol, cast


@dataclass(frozen=True, slots=True)
class JsonError:
    """The first point at which a buffer stops being (a prefix of) valid JSON."""

    offset: int
    """UTF-8 byte offset of the offending character (or of end-of-input) in the whole buffer."""
    char_offset: int
    """The same position in characters (a ``str`` index into the whole buffer)."""
    reason: str
    """Readable reason, e.g. ``"unexpected '}' after the end of the JSON value at byte 10"``."""


class _Run(Protocol):
    """A compiled ``(...)*+`` pattern: ``match`` always succeeds (possibly empty)."""

    def match(self, string: str, pos: int = 0) -> re.Match[str]: ...


def _run(pattern: str) -> _Run:
    return cast(_Run, re.compile(pattern))


_W = r"[ \t\n\r]*+"
_BODY = r'(?:[^"\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+'
_SCALAR = rf'(?:"{_BODY}"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null)'
_WS_RUN: Final = _run(_W)
_CHAR_RUN: Final = _run(r'[^"\\\x00-\x1f]*+')  # plain string characters
_BODY_RUN: Final = _run(_BODY)  # plain characters and complete escapes


def _nest(value: str) -> str:
    """Values that are ``value`` or an array/object of them."""
    items = rf"{_W}{value}{_W}(?:,{_W}{value}{_W})*+"
    members = rf'{_W}"{_BODY}"{_W}:{_W}{value}{_W}(?:,{_W}"{_BODY}"{_W}:{_W}{value}{_W})*+'
    return rf"(?:{value}|\[(?:{items}|{_W})\]|\{{(?:{members}|{_W})\}})"


# Units that lead from a state back to itself, each closed by ',' (so no number is cut short):
# "value ," in an array (state _VALUE_A), "key : value ," in an object (state _KEY); a value
# may hold containers up to two levels deep.
_VALUE = _nest(_nest(_SCALAR))
_ARRAY_RUN: Final = _run(rf"(?>{_W}{_VALUE}{_W},)*+")
_OBJECT_RUN: Final = _run(rf'(?>{_W}"{_BODY}"{_W}:{_W}{_VALUE}{_W},)*+')
_LONG: Final = 200  # a rest long enough to be worth a bulk-regex attempt

# -- the automaton -------------------------------------------------------------------------
# A state's row maps a character to a code: below _ACT the next state; above, an action on a
# target state, act * _ACT + target (feed inlines the run-skipping ones; _act does the rest).
# Contexts: T top level, O object value, A array element, K object key.
_ROWS: Final[list[dict[str, int]]] = []
_INFO: Final[list[tuple[str, str]]] = []  # (inside what, for end of input; what was expected)
_ACT, _ENTER, _COMMA, _SKIP, _PUSH, _POP, _FAIL = 256, 1, 2, 3, 4, 5, 6
_FAIL_CODE: Final = _FAIL * _ACT
_DONE_HOW, _CONTROL, _ESCAPE, _HEX_DIGIT = "\0done", "\0control", "\0escape", "\0hex"


def _state(where: str = "", how: str = "") -> int:
    _ROWS.append({})
    _INFO.append((where, how))
    return len(_ROWS) - 1


def _on(state: int, chars: str, target: int, act: int = 0) -> None:
    _ROWS[state].update(dict.fromkeys(chars, act * _ACT + target))


_BODY_OF: Final = {ctx: _state("a string", _CONTROL) for ctx in "TOAK"}  # states 0..3
_VALUE_T, _VALUE_O, _VALUE_A = (_state(how="a value") for _ in range(3))
_ARR_FIRST = _state(how="a value or ']'")
_OBJ_FIRST, _KEY = _state(how="a string key or '}'"), _state(how="a string key")
_COLON, _AFTER_O, _AFTER_A = _state(how="':'"), _state(how="',' or '}'"), _state(how="',' or ']'")
_DONE, _ERROR = _state(how=_DONE_HOW), _state()
_AFTER: Final = {"T": _DONE, "O": _AFTER_O, "A": _AFTER_A, "K": _COLON}
_AFTER_OF: Final = {"{": _AFTER_O, "[": _AFTER_A}
_DIGITS, _HEX = "0123456789", "0123456789abcdefABCDEF"


def _build() -> None:
    for s in range(_VALUE_T, _ERROR):  # whitespace keeps every structural state
        _on(s, " \t\r", s)
        _on(s, "\n", s, _SKIP)
    _on(_ARR_FIRST, "]", 0, _POP)
    _on(_OBJ_FIRST, "}", 0, _POP)
    _on(_OBJ_FIRST, '"', _BODY_OF["K"], _ENTER)
    _on(_KEY, '"', _BODY_OF["K"], _ENTER)
    _on(_COLON, ":", _VALUE_O)
    _on(_AFTER_O, ",", _KEY, _COMMA)
    _on(_AFTER_O, "}", 0, _POP)
    _on(_AFTER_A, ",", _VALUE_A, _COMMA)
    _on(_AFTER_A, "]", 0, _POP)
    for ctx, body in _BODY_OF.items():
        _string(body, _AFTER[ctx])
    for ctx, value_states in (("T", [_VALUE_T]), ("O", [_VALUE_O]), ("A", [_VALUE_A, _ARR_FIRST])):
        starts = {**_number(_AFTER[ctx]), **_literals(_AFTER[ctx])}
        for s in value_states:
            _ROWS[s].update(starts)
            _on(s, '"', _BODY_OF[ctx], _ENTER)
            _on(s, "{", _OBJ_FIRST, _PUSH)
            _on(s, "[", _ARR_FIRST, _PUSH)


def _string(body: int, after: int) -> None:
    esc = _state("a string escape", _ESCAPE)
    hexes = [_state("a string escape", _HEX_DIGIT) for _ in range(4)]  # 4..1 digits to go
    _on(body, '"', after)
    _on(body, "\\", esc)
    _on(esc, '"\\/bfnrt', body, _ENTER)
    _on(esc, "u", hexes[0])
    for this, nxt in itertools.pairwise(hexes):
        _on(this, _HEX, nxt)
    _on(hexes[-1], _HEX, body, _ENTER)


def _number(after: int) -> dict[str, int]:
    """Number states ending in ``after``; returns the transitions that start a number."""
    ends = _INFO[after][1]  # a complete number fails like the state after it
    needs = ("a digit", "a digit", "a digit or a sign", "a digit")
    minus, dot, e, sign = (_state("a number", how) for how in needs)
    zero, int_, frac, exp = (_state("a number", ends) for _ in range(4))
    rules = ((minus, "0", zero), (minus, "123456789", int_), (int_, _DIGITS, int_),
             (zero, ".", dot), (int_, ".", dot), (dot, _DIGITS, frac), (frac, _DIGITS, frac),
             (zero, "eE", e), (int_, "eE", e), (frac, "eE", e), (e, "+-", sign),
             (e, _DIGITS, exp), (sign, _DIGITS, exp), (exp, _DIGITS, exp))  # fmt: skip
    for s in (zero, int_, frac, exp):  # the number may end: the next character acts as in after
        _ROWS[s].update(_ROWS[after])
    for s, chars, t in rules:
        _on(s, chars, t)
    if after == _DONE:
        _COMPLETE.update((zero, int_, frac, exp))
    return {"-": minus, "0": zero, **dict.fromkeys("123456789", int_)}


def _literals(after: int) -> dict[str, int]:
    starts: dict[str, int] = {}
    for word in ("true", "false", "null"):
        chain = [_state("a literal", repr(word)) for _ in word[1:]]
        starts[word[0]] = chain[0]
        for s, c, nxt in zip(chain, word[1:], [*chain[1:], after], strict=True):
            _on(s, c, nxt)
    return starts


_COMPLETE: Final = {_DONE}
_build()
_IN_STRING: Final = frozenset(s for s, (where, _) in enumerate(_INFO) if "string" in where)
_KINDS: Final = {"{": "object", "[": "array", '"': "string", "t": "literal", "f": "literal",
                 "n": "literal", **dict.fromkeys("-" + _DIGITS, "number")}  # fmt: skip


def _utf8_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _show(c: str) -> str:
    return repr(c) if c.isprintable() else f"U+{ord(c):04X}"


class JsonProgress:
    """The JSON state of a growing buffer; see the module docstring for the invariants."""

    __slots__ = ("_extra", "_stack", "_state", "error", "length", "top_level")

    def __init__(self) -> None:
        self.length = 0
        """Characters consumed."""
        self.error: JsonError | None = None
        """First error: no continuation can make the text valid. Sticky."""
        self.top_level: str | None = None
        """"object", "array", "string", "number" or "literal" once the first value starts."""
        self._extra = 0  # UTF-8 bytes beyond one per character
        self._stack: list[str] = []  # open containers, "{" or "["
        self._state = _VALUE_T

    @property
    def byte_length(self) -> int:
        """UTF-8 bytes consumed."""
        return self.length + self._extra

    @property
    def depth(self) -> int:
        """Nesting depth of open objects/arrays."""
        return len(self._stack)

    @property
    def in_string(self) -> bool:
        """Inside a string (key or value), including inside an escape."""
        return self._state in _IN_STRING

    @property
    def complete(self) -> bool:
        """The text so far is a complete JSON text (``json.loads`` accepts it, NaN aside)."""
        return self._state in _COMPLETE

    @property
    def empty(self) -> bool:
        """Nothing but whitespace so far."""
        return self._state == _VALUE_T

    def snapshot(self) -> tuple[int, bool, bool, bool]:
        """(depth, in_string, complete, has error): a cheap immutable per-fragment summary."""
        st = self._state
        return (len(self._stack), st in _IN_STRING, st in _COMPLETE, st == _ERROR)

    def label(self) -> str:
        """Short human state: "empty", "open: depth 2", "complete", "error: ..."."""
        if self.error is not None:
            return f"error: {self.error.reason}"
        if self.empty or self.complete:
            return "empty" if self.empty else "complete"
        where = _INFO[self._state][0]  # "a string" -> "in string"
        inside = f"in {where[2:]} (depth {self.depth})" if where else f"depth {self.depth}"
        return f"open: {inside}"

    def end(self) -> JsonError | None:
        """The error end of input would cause now (None if complete or empty); changes nothing."""
        if self.error is not None or self.empty or self.complete:
            return self.error
        where = _INFO[self._state][0] or ("an object" if self._stack[-1] == "{" else "an array")
        b = self.byte_length
        reason = f"unexpected end of input inside {where} at byte {b} (depth {self.depth})"
        return JsonError(b, self.length, reason)

    def feed(self, text: str) -> None:
        """Append a fragment; O(len(text)). After the first error input is only counted."""
        n, st = len(text), self._state
        self.length += n
        if not text.isascii():
            self._extra += _utf8_len(text) - n
        if st < 4:  # in a string body
            if '"' not in text and "\\" not in text and text.isprintable():
                return  # fast path: the whole fragment is string body
            pos = _CHAR_RUN.match(text).end()
        elif st == _ERROR:
            return
        else:
            pos = 0
            if st == _VALUE_T and n:
                first = _WS_RUN.match(text).end()
                self.top_level = _KINDS.get(text[first]) if first < n else None
        rows = _ROWS
        while pos < n:
            code = rows[st].get(text[pos], _FAIL_CODE)
            if code < _ACT:
                st, pos = code, pos + 1
            elif code < 2 * _ACT:  # into a string body: skip its plain run
                run = _BODY_RUN if n - pos > 64 else _CHAR_RUN
                st, pos = code - _ACT, run.match(text, pos + 1).end()
            elif code < 3 * _ACT:  # ',': with a long rest, take a run of members in one go
                st, pos = code - 2 * _ACT, pos + 1
                if n - pos > _LONG:
                    pos = (_OBJECT_RUN if st == _KEY else _ARRAY_RUN).match(text, pos).end()
            elif code < 4 * _ACT:  # a newline: skip the whitespace run it starts
                st, pos = code - 3 * _ACT, _WS_RUN.match(text, pos + 1).end()
            else:
                self._state = st
                pos = self._act(code, text, pos)
                st = self._state
        self._state = st

    def _act(self, code: int, text: str, pos: int) -> int:
        """Perform the action ``code`` for ``text[pos]``; return the position after it."""
        act, st = divmod(code, _ACT)
        if act == _FAIL:
            return self._fail(text, pos)
        stack = self._stack
        if act == _POP:
            stack.pop()
            self._state = _AFTER_OF[stack[-1]] if stack else _DONE
        else:
            stack.append("{" if st == _OBJ_FIRST else "[")
            self._state = st
        return pos + 1

    def _fail(self, text: str, pos: int) -> int:
        c, how = text[pos], _INFO[self._state][1]
        shown, tail = _show(c), ""
        if how == _CONTROL:
            what = f"control character U+{ord(c):04X} inside a string"
        elif how == _ESCAPE:
            what = "invalid escape " + (f"'\\{c}'" if c.isprintable() else f"'\\' + {shown}")
        elif how == _HEX_DIGIT:
            what, tail = f"invalid \\u escape: unexpected {shown}", " (expected a hex digit)"
        elif how == _DONE_HOW:
            what = f"unexpected {shown} after the end of the JSON value"
        else:
            what, tail = f"unexpected {shown}", f" (expected {how})"
        b = self.byte_length - _utf8_len(text[pos:])  # the fragment is already counted
        self.error = JsonError(b, self.length - len(text) + pos, f"{what} at byte {b}{tail}")
        self._state = _ERROR
        return len(text)


def first_error(text: str) -> JsonError | None:
    """The first error of ``text`` as a whole JSON text (feed + end in one go)."""
    progress = JsonProgress()
    progress.feed(text)
    return progress.end()
