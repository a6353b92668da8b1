"""jiter's partial-mode JSON parse (``from_json(buf, partial_mode=True)``), as the anthropic SDK
runs it on a tool call's ``input_json_delta`` buffer after every fragment.

Follows jiter 0.19 (``crates/jiter/src/python.rs``, ``parse.rs``, ``errors.rs``, the string and
number decoders), the version the anthropic SDK 2.15 installs.

What partial mode does, modelled here:
- An array or object that hits an error of the *partial* kinds (EOF inside a list, object,
  string or value; a missing ``,``/``]`` or ``,``/``}`` after a member) ends there and keeps
  the members it finished: ``{"city": "Par`` gives ``{}``, ``{"a": 1 "b": 2}`` gives
  ``{"a": 1}``. An unfinished string or number is dropped with its key. Any other error
  (``expected value``, ``invalid number``, ``trailing comma``, ``key must be a string`` …)
  propagates, and so does any error outside every container (``"abc`` raises).
- Nothing after the first value is read: ``{"a":1}{"b":2}`` gives ``{"a": 1}``.
- ``Infinity``, ``-Infinity`` and ``NaN`` are numbers; integers have no size limit; a float
  is the nearest double (``1e400`` is ``inf``). Duplicate keys: the last value, at the first
  key's place.
- An error reads ``<what> at line L column C`` (bytes, from 1; an error at the end of the
  data gives the data's length as the column).
"""

from __future__ import annotations

from typing import Any, Final

_PARTIAL: Final = frozenset(
    {
        "EOF while parsing a list",
        "EOF while parsing an object",
        "EOF while parsing a string",
        "EOF while parsing a value",
        "expected `,` or `]`",
        "expected `,` or `}`",
    }
)
_ESCAPES: Final = {
    ord('"'): '"', ord("\\"): "\\", ord("/"): "/", ord("b"): "\b",
    ord("f"): "\f", ord("n"): "\n", ord("r"): "\r", ord("t"): "\t",
}  # fmt: skip
_IDENTS: Final[dict[int, tuple[bytes, Any]]] = {
    ord("n"): (b"null", None),
    ord("t"): (b"true", True),
    ord("f"): (b"false", False),
}
_RECURSION_LIMIT: Final = 200
_WHITESPACE: Final = b" \t\r\n"


class JiterError(ValueError):
    """jiter's ValueError: ``str()`` is its message with the line and column."""

    def __init__(self, what: str, index: int, data: bytes) -> None:
        super().__init__(f"{what} at {_position(data, index)}")
        self.what = what


def _position(data: bytes, index: int) -> str:
    line, line_start = 1, 0
    for i, byte in enumerate(data):
        if byte == 0x0A:
            line, line_start = line + 1, i + 1
        if i == index:
            return f"line {line} column {index + 1 - line_start}"
    return f"line {line} column {max(len(data) - line_start, 0)}"


def partial_loads(data: bytes) -> Any:
    """The value jiter's partial mode makes of ``data``; :class:`JiterError` where it raises."""
    return _Parser(data).top()


class _Parser:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.i = 0
        self.depth = 0

    def fail(self, what: str, index: int | None = None) -> JiterError:
        return JiterError(what, self.i if index is None else index, self.data)

    def peek(self) -> int | None:
        data, i = self.data, self.i
        while i < len(data) and data[i] in _WHITESPACE:
            i += 1
        self.i = i
        return data[i] if i < len(data) else None

    def top(self) -> Any:
        first = self.peek()
        if first is None:
            raise self.fail("EOF while parsing a value")
        return self.value(first)

    def value(self, first: int) -> Any:
        if first == ord('"'):
            return self.string()
        if first in (ord("["), ord("{")):
            out: Any = [] if first == ord("[") else {}
            try:
                self.array(out) if first == ord("[") else self.object(out)
            except JiterError as exc:
                if exc.what not in _PARTIAL:
                    raise
            return out
        if first in _IDENTS:
            word, result = _IDENTS[first]
            self.ident(word)
            return result
        if first == ord("-") or ord("0") <= first <= ord("9") or first in b"IN":
            return self.number()
        raise self.fail("expected value")

    def member(self, first: int) -> Any:
        """A value inside a container (jiter counts these against its recursion limit)."""
        if self.depth >= _RECURSION_LIMIT:
            raise self.fail("recursion limit exceeded")
        self.depth += 1
        try:
            return self.value(first)
        finally:
            self.depth -= 1

    def array(self, out: list[Any]) -> None:
        self.i += 1
        first = self.peek()
        if first is None:
            raise self.fail("EOF while parsing a list")
        if first == ord("]"):
            self.i += 1
            return
        out.append(self.member(first))
        while True:
            sep = self.peek()
            if sep is None:
                raise self.fail("EOF while parsing a list")
            if sep == ord("]"):
                self.i += 1
                return
            if sep != ord(","):
                raise self.fail("expected `,` or `]`")
            self.i += 1
            nxt = self.peek()
            if nxt is None:
                raise self.fail("EOF while parsing a value")
            if nxt == ord("]"):
                raise self.fail("trailing comma")
            out.append(self.member(nxt))

    def object(self, out: dict[str, Any]) -> None:
        self.i += 1
        first = self.peek()
        if first is None:
            raise self.fail("EOF while parsing an object")
        if first == ord("}"):
            self.i += 1
            return
        if first != ord('"'):
            raise self.fail("key must be a string")
        while True:
            key = self.key()
            nxt = self.peek()
            if nxt is None:
                raise self.fail("EOF while parsing a value")
            out[key] = self.member(nxt)
            sep = self.peek()
            if sep is None:
                raise self.fail("EOF while parsing an object")
            if sep == ord("}"):
                self.i += 1
                return
            if sep != ord(","):
                raise self.fail("expected `,` or `}`")
            self.i += 1
            nxt = self.peek()
            if nxt is None:
                raise self.fail("EOF while parsing a value")
            if nxt == ord("}"):
                raise self.fail("trailing comma")
            if nxt != ord('"'):
                raise self.fail("key must be a string")

    def key(self) -> str:
        key = self.string()
        colon = self.peek()
        if colon is None:
            raise self.fail("EOF while parsing an object")
        if colon != ord(":"):
            raise self.fail("expected `:`")
        self.i += 1
        return key

    def ident(self, word: bytes) -> None:
        data, i = self.data, self.i + 1
        for expected in word[1:]:
            if i >= len(data):
                raise self.fail("EOF while parsing a value", i)
            if data[i] != expected:
                raise self.fail("expected ident", i)
            i += 1
        self.i = i

    def string(self) -> str:
        data, i = self.data, self.i + 1
        out: list[str] = []
        start = i
        while True:
            if i >= len(data):
                raise self.fail("EOF while parsing a string", len(data))
            byte = data[i]
            if byte == ord('"'):
                out.append(data[start:i].decode("utf-8", "surrogatepass"))
                self.i = i + 1
                return "".join(out)
            if byte < 0x20:
                raise self.fail(
                    "control character (\\u0000-\\u001F) found while parsing a string", i
                )
            if byte != ord("\\"):
                i += 1
                continue
            out.append(data[start:i].decode("utf-8", "surrogatepass"))
            i += 1
            if i >= len(data):
                raise self.fail("EOF while parsing a string", len(data))
            esc = data[i]
            if esc in _ESCAPES:
                out.append(_ESCAPES[esc])
                i += 1
            elif esc == ord("u"):
                char, i = self.unicode(i)
                out.append(char)
            else:
                raise self.fail("invalid escape", i)
            start = i

    def hex4(self, i: int) -> tuple[int, int]:
        """The code unit of ``\\uXXXX`` whose ``u`` is at ``i``, and the index after it."""
        data, value = self.data, 0
        if i + 4 >= len(data):
            raise self.fail("EOF while parsing a string", len(data))
        for j in range(i + 1, i + 5):
            digit = chr(data[j])
            if digit not in "0123456789abcdefABCDEF":
                raise self.fail("invalid escape", j)
            value = value * 16 + int(digit, 16)
        return value, i + 5

    def unicode(self, i: int) -> tuple[str, int]:
        high, i = self.hex4(i)
        if 0xDC00 <= high <= 0xDFFF:
            raise self.fail("lone leading surrogate in hex escape", i - 1)
        if not 0xD800 <= high <= 0xDBFF:
            return chr(high), i
        data = self.data
        for j, want in ((i, ord("\\")), (i + 1, ord("u"))):
            if j >= len(data):
                raise self.fail("EOF while parsing a string", len(data))
            if data[j] != want:
                raise self.fail("unexpected end of hex escape", j)
        low, i = self.hex4(i + 1)
        if not 0xDC00 <= low <= 0xDFFF:
            raise self.fail("lone leading surrogate in hex escape", i - 1)
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)), i

    def number(self) -> Any:
        data, start = self.data, self.i
        i = start + 1 if data[start] == ord("-") else start
        if data[i : i + 1] == b"N" and i == start:
            self.ident(b"NaN")
            return float("nan")
        if data[i : i + 1] == b"I":
            self.i = i
            self.ident(b"Infinity")
            return float("-inf") if i > start else float("inf")
        i = self.digits(i, first=True)
        is_float = False
        if i < len(data) and data[i] == ord("."):
            i, is_float = self.digits(i + 1), True
        if i < len(data) and data[i] in b"eE":
            i, is_float = i + 1, True
            if i < len(data) and data[i] in b"+-":
                i += 1
            i = self.digits(i)
        text = data[start:i].decode("ascii")
        self.i = i
        return float(text) if is_float else int(text)

    def digits(self, i: int, first: bool = False) -> int:
        """The index after a run of digits starting at ``i`` (at least one; after a leading
        ``0`` of an integer part, none)."""
        data = self.data
        if i >= len(data):
            raise self.fail("EOF while parsing a value", i)
        if not ord("0") <= data[i] <= ord("9"):
            raise self.fail("invalid number", i)
        if first and data[i] == ord("0"):
            if i + 1 < len(data) and ord("0") <= data[i + 1] <= ord("9"):
                raise self.fail("invalid number", i + 1)
            return i + 1
        while i < len(data) and ord("0") <= data[i] <= ord("9"):
            i += 1
        return i
