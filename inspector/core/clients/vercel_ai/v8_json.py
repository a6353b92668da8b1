"""JavaScript's ``JSON.parse`` (V8, as in Node 24) and ``JSON.stringify``, for replicas of
JavaScript clients (the Vercel AI SDK).

Follows V8's ``src/json/json-parser.cc`` (``ParseJsonValueRecursive``, ``ScanJsonString``,
``ParseJsonNumberAsDoubleOrSmi``, ``ReportUnexpectedToken``) and its message templates.

Invariants:
- :func:`parse` gives JavaScript's value as Python holds it: objects as dicts whose keys are in
  JavaScript's order (array-index keys ``"0"``, ``"1"`` … ascending first, then the others as
  inserted; a repeated key keeps its first place and takes the last value), every number a
  float (``-0.0`` kept), strings, lists, booleans and None. Where V8 throws it raises
  :class:`JsSyntaxError` whose message is V8's: ``Unexpected end of JSON input``, ``Unexpected
  token 'x', "…" is not valid JSON`` (with V8's 10-character context and ellipses for sources
  of 21 characters or more), or ``<what> in JSON at position P (line L column C)``;
  positions count UTF-16 code units, as JavaScript strings do.
- :func:`stringify` is ``JSON.stringify`` of such a value (compact, or indented like
  ``JSON.stringify(v, null, 2)``): numbers as JavaScript prints them (``1e+21``, ``1e-7``,
  ``-0`` as ``0``), only ``"``, ``\\``, control characters and lone surrogates escaped.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any, Final

_WS: Final = " \t\n\r"
_CONTEXT: Final = 10
_MIN_CONTEXT_SOURCE: Final = 2 * _CONTEXT + 1
_SPECIAL: Final = ("[object Object]", "undefined", "Infinity", "NaN")
_ESCAPES: Final = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                   "t": "\t"}  # fmt: skip
_INDEX_KEY: Final = re.compile(r"0|[1-9][0-9]*")
_AT: Final = " at position {pos} (line {line} column {col})"


class JsSyntaxError(ValueError):
    """A ``SyntaxError`` from ``JSON.parse``: ``str()`` is V8's message."""

    def __init__(self, message: str) -> None:
        super().__init__(_joined(message))


def _units(text: str) -> str:
    """``text`` as UTF-16 code units, one Python character per unit."""
    if all(ord(c) < 0x10000 for c in text):
        return text
    data = text.encode("utf-16-le", "surrogatepass")
    return "".join(chr(int.from_bytes(data[i : i + 2], "little")) for i in range(0, len(data), 2))


_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _joined(units: str) -> str:
    """Code units back to a Python string: surrogate pairs become one character."""
    if not _SURROGATE.search(units):
        return units
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def is_index_key(key: str) -> bool:
    """An array-index property name (JavaScript orders these first)."""
    return len(key) <= 10 and bool(_INDEX_KEY.fullmatch(key)) and int(key) < 2**32 - 1


def js_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object with JavaScript's key order (see the module's invariants)."""
    for key, _ in pairs:
        if "0" <= key[:1] <= "9":  # it may be an array index: ordered below
            break
    else:
        return dict(pairs)  # insertion order; a repeated key keeps its place, takes the value
    named: dict[str, Any] = {}
    indexed: dict[str, Any] = {}
    for key, value in pairs:
        (indexed if is_index_key(key) else named)[key] = value
    if not indexed:
        return named
    out = {k: indexed[k] for k in sorted(indexed, key=int)}
    out.update(named)
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(name)  # NaN, Infinity: Python's json takes them, JSON.parse does not


_DECODER: Final = json.JSONDecoder(
    parse_int=float, parse_float=float, parse_constant=_no_constant, object_pairs_hook=js_object
)
"""Python's C parser, giving JavaScript's values (``json.loads`` with these hooks, built once)."""


_PLAIN_DECODER: Final = json.JSONDecoder(
    parse_int=float, parse_float=float, parse_constant=_no_constant
)
""":data:`_DECODER` for text with no key that may be an array index (no reordering due)."""
_MAYBE_INDEX_KEY: Final = re.compile(r'"(?:[0-9]|\\u003[0-9])')  # a digit, maybe escaped


def parse(text: str) -> Any:
    """``JSON.parse(text)`` (see the module's invariants). Python's C parser reads what both
    accept (the same grammar but for ``NaN``/``Infinity``); V8's words come from the model
    below, which only runs on text that fails. Objects are only reordered (a Python hook per
    object) when some string starts with a digit: some key may be an array index."""
    decoder = _DECODER if _MAYBE_INDEX_KEY.search(text) else _PLAIN_DECODER
    try:
        return decoder.decode(text)
    except (ValueError, RecursionError):
        pass
    try:
        return _Parser(_units(text)).top()
    except RecursionError:
        raise JsSyntaxError("Maximum call stack size exceeded") from None


class _Parser:
    def __init__(self, src: str) -> None:
        self.src = src
        self.i = 0

    # -- errors, as ReportUnexpectedToken words them ----------------------------------------

    def where(self, pos: int) -> str:
        line, last = 1, 0
        src, k = self.src, 0
        while k < pos:
            if src[k] == "\r" and k < pos - 1 and src[k + 1] == "\n":
                k += 1
            if src[k] in "\r\n":
                line, last = line + 1, k + 1
            k += 1
        return _AT.format(pos=pos, line=line, col=1 + pos - last)

    def at(self, what: str, pos: int | None = None) -> JsSyntaxError:
        return JsSyntaxError(what + self.where(self.i if pos is None else pos))

    def unexpected(self, pos: int | None = None) -> JsSyntaxError:
        """The message for an unexpected character (or the end) at ``pos``."""
        pos = self.i if pos is None else pos
        src = self.src
        if pos >= len(src):
            return JsSyntaxError("Unexpected end of JSON input")
        if src in _SPECIAL:
            return JsSyntaxError(f'"{src}" is not valid JSON')
        token = src[pos]
        if token == '"':
            return JsSyntaxError("Unexpected string in JSON" + self.where(pos))
        if token == "-" or "0" <= token <= "9":
            return JsSyntaxError("Unexpected number in JSON" + self.where(pos))
        head = f"Unexpected token '{token}', "
        if len(src) < _MIN_CONTEXT_SOURCE:
            return JsSyntaxError(f'{head}"{src}" is not valid JSON')
        if pos < _CONTEXT:
            return JsSyntaxError(f'{head}"{src[: pos + _CONTEXT]}"... is not valid JSON')
        if pos < len(src) - _CONTEXT:
            shown = src[pos - _CONTEXT : pos + _CONTEXT]
            return JsSyntaxError(f'{head}..."{shown}"... is not valid JSON')
        return JsSyntaxError(f'{head}..."{src[pos - _CONTEXT :]}" is not valid JSON')

    # -- the grammar -----------------------------------------------------------------------

    def skip(self) -> str:
        src, i = self.src, self.i
        while i < len(src) and src[i] in _WS:
            i += 1
        self.i = i
        return src[i] if i < len(src) else ""

    def top(self) -> Any:
        value = self.value()
        if self.skip():
            raise self.at("Unexpected non-whitespace character after JSON")
        return value

    def value(self) -> Any:
        c = self.skip()
        if c == '"':
            return self.string()
        if c == "-" or "0" <= c <= "9":
            return self.number()
        if c == "{":
            return self.obj()
        if c == "[":
            return self.array()
        for word, result in (("true", True), ("false", False), ("null", None)):
            if c == word[0]:
                self.literal(word)
                return result
        raise self.unexpected()

    def literal(self, word: str) -> None:
        src, i = self.src, self.i
        for expected in word:
            if i >= len(src) or src[i] != expected:
                raise self.unexpected(i)
            i += 1
        self.i = i

    def expect(self, char: str, what: str) -> None:
        if self.skip() != char:
            raise self.at(what)
        self.i += 1

    def obj(self) -> dict[str, Any]:
        self.i += 1
        if self.skip() == "}":
            self.i += 1
            return {}
        pairs: list[tuple[str, Any]] = []
        what = "Expected property name or '}' in JSON"
        while True:
            if self.skip() != '"':
                raise self.at(what)
            key = self.string()
            self.expect(":", "Expected ':' after property name in JSON")
            pairs.append((key, self.value()))
            if self.skip() != ",":
                break
            self.i += 1
            what = "Expected double-quoted property name in JSON"
        self.expect("}", "Expected ',' or '}' after property value in JSON")
        return js_object(pairs)

    def array(self) -> list[Any]:
        self.i += 1
        if self.skip() == "]":
            self.i += 1
            return []
        out = [self.value()]
        while self.skip() == ",":
            self.i += 1
            out.append(self.value())
        self.expect("]", "Expected ',' or ']' after array element in JSON")
        return out

    def string(self) -> str:
        src, i = self.src, self.i + 1
        out: list[str] = []
        while True:
            if i >= len(src):
                raise self.at("Unterminated string in JSON", len(src))
            c = src[i]
            if c == '"':
                self.i = i + 1
                return _joined("".join(out))
            if c < " ":
                raise self.at("Bad control character in string literal in JSON", i)
            if c != "\\":
                out.append(c)
                i += 1
                continue
            i += 1
            esc = src[i] if i < len(src) else ""
            if not esc or ord(esc) > 0xFF:
                raise self.unexpected(i)
            if esc in _ESCAPES:
                out.append(_ESCAPES[esc])
                i += 1
            elif esc == "u":
                for k in range(i + 1, i + 5):
                    if k >= len(src) or src[k] not in "0123456789abcdefABCDEF":
                        raise self.at("Bad Unicode escape in JSON", min(k, len(src)))
                out.append(chr(int(src[i + 1 : i + 5], 16)))
                i += 5
            else:
                raise self.at("Bad escaped character in JSON", i)

    def number(self) -> float:
        src, start = self.src, self.i
        i = start + 1 if src[start] == "-" else start

        def digit(k: int) -> bool:
            return k < len(src) and "0" <= src[k] <= "9"

        if i < len(src) and src[i] == "0":
            i += 1
            if digit(i):
                raise JsSyntaxError("Unexpected number in JSON" + self.where(i))
        else:
            if not digit(i):
                raise self.at("No number after minus sign in JSON", i)
            while digit(i):
                i += 1
        if i < len(src) and src[i] == ".":
            i += 1
            if not digit(i):
                raise self.at("Unterminated fractional number in JSON", i)
            while digit(i):
                i += 1
        if i < len(src) and src[i] in "eE":
            i += 1
            if i < len(src) and src[i] in "+-":
                i += 1
            if not digit(i):
                raise self.at("Exponent part is missing a number in JSON", i)
            while digit(i):
                i += 1
        self.i = i
        return float(src[start:i])


# -- JSON.stringify --------------------------------------------------------------------------


def number_text(x: float) -> str:
    """JavaScript's ``Number.prototype.toString()`` of a finite double."""
    if x == 0:
        return "0"
    if math.isnan(x) or math.isinf(x):
        return "null"
    sign = "-" if x < 0 else ""
    mantissa, _, exp = repr(abs(x)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac.rstrip("0")) if frac != "0" else whole
    point = len(whole) + (int(exp) if exp else 0)  # the decimal point's place in the digits
    lead = len(digits) - len(digits.lstrip("0"))
    digits, point = digits.lstrip("0"), point - lead
    digits = digits.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    e = n - 1
    tail = ("." + digits[1:]) if k > 1 else ""
    return f"{sign}{digits[0]}{tail}e{'+' if e >= 0 else '-'}{abs(e)}"


_NEEDS_ESCAPE: Final = re.compile('["\\\\\x00-\x1f\ud800-\udfff]')
"""What ``JSON.stringify`` escapes: ``"``, ``\\``, control characters, lone surrogates."""
_NAMED: Final = {8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r"}


def _escaped(match: re.Match[str]) -> str:
    c = match.group()
    o = ord(c)
    if c == '"' or c == "\\":
        return "\\" + c
    return _NAMED.get(o) or f"\\u{o:04x}"


_QUOTED: Final = json.encoder.encode_basestring
"""Python's C string writer (``ensure_ascii=False``): it escapes exactly ``"``, ``\\`` and the
control characters, with the same escapes as :func:`_escaped` (``\\n``, ``\\u001f`` …), so it
writes what ``JSON.stringify`` writes for a string with no surrogate (a long argument text
quoted at C speed, not a Python call per escape)."""


def _quote(s: str, out: list[str]) -> None:
    """``s`` quoted, as pieces appended to ``out`` (nothing to escape: ``s`` itself, no copy)."""
    if not _NEEDS_ESCAPE.search(s):
        out += ('"', s, '"')
    elif not _SURROGATE.search(s):
        out.append(_QUOTED(s))
    else:  # (JavaScript's UTF-16 pairs halves Python holds apart)
        out += ('"', _NEEDS_ESCAPE.sub(_escaped, _joined(s)), '"')


def stringify(value: Any, indent: int = 0) -> str:
    """``JSON.stringify(value)``, or ``JSON.stringify(value, null, indent)``: written as
    pieces, joined once (no copy of a long string per level)."""
    out: list[str] = []
    _write(value, indent, 0, out)
    return "".join(out)


def _write(value: Any, indent: int, depth: int, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int | float):
        out.append(number_text(float(value)))
    elif isinstance(value, str):
        _quote(value, out)
    elif isinstance(value, dict):
        _items("{", "}", value.items(), True, indent, depth, out)
    else:
        _items("[", "]", ((None, v) for v in value), False, indent, depth, out)


def _items(
    open_: str,
    close: str,
    items: Iterable[tuple[Any, Any]],
    keyed: bool,
    indent: int,
    depth: int,
    out: list[str],
) -> None:
    out.append(open_)
    inner = "\n" + " " * (indent * (depth + 1)) if indent else ""
    any_item = False
    for key, item in items:
        out.append(("," + inner) if any_item else inner)
        any_item = True
        if keyed:
            _quote(key, out)
            out.append(": " if indent else ":")
        _write(item, indent, depth + 1, out)
    if any_item and indent:
        out.append("\n" + " " * (indent * depth))
    out.append(close)
