"""langchain-core's ``parse_partial_json``: what ``AIMessageChunk.tool_calls`` makes of a
call's (possibly cut-off) arguments.

Follows langchain-core 1.8.3, ``langchain_core/utils/json.py`` (``strict=False``: control
characters inside strings are accepted), with the standard library's ``json`` as LangChain
uses it, so numbers, escapes and repeated keys parse exactly as there.

Invariants:
- Whole JSON parses as it is. Otherwise open strings are closed (a dangling backslash
  dropped), open objects and arrays closed in reverse order, and characters removed from the
  end until the result parses; a closing bracket that matches nothing gives None.
- When nothing parses, the original string's ``JSONDecodeError`` is raised.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

_NON_STRICT: Final = json.JSONDecoder(strict=False)


def _loads(s: str) -> Any:
    """``json.loads(s, strict=False)``, its decoder built once (``json.loads`` builds one per
    call when given an option); the same BOM refusal first."""
    if s.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", s, 0)
    return _NON_STRICT.decode(s)


def parse_partial_json(s: str) -> Any:
    """langchain-core's ``parse_partial_json`` (non-strict): the JSON value of ``s`` closed
    where it was cut off, None on a mismatched bracket; raises when nothing parses.

    LangChain builds a list of characters (``"\\n"`` for a raw newline in a string) and pops
    one at a time until it parses; here the text is rewritten once (a regular expression finds
    the characters that matter) and cut at the error's position, a rewritten newline never
    cut in two: the same result, without a list item per character."""
    try:
        return _loads(s)
    except json.JSONDecodeError:
        pass
    scanned = _scan(s)
    if scanned is None:
        return None
    text, newlines, closers = scanned
    size = len(text)
    while size > 0:
        try:
            return _loads(text[:size] + closers)
        except json.JSONDecodeError as exc:
            at = exc.pos
            if at < size:  # cut before the character (or rewritten newline) that fails
                size = at - 1 if at - 1 in newlines else at
            else:  # it fails in the closers: one character (or newline) less
                size = size - 2 if size - 2 in newlines else size - 1
    return _loads(s)


_IN_STRING: Final = re.compile(r'["\n\\]')
_OUTSIDE: Final = re.compile(r'["{}\[\]]')


def _scan(s: str) -> tuple[str, set[int], str] | None:
    """``s`` with each raw newline inside a string written ``\\n`` and a string left open
    closed (a dangling backslash dropped); where each rewritten newline starts; the closers of
    the brackets left open, innermost first. None on a bracket that closes nothing open."""
    pieces: list[str] = []
    newlines: set[int] = set()
    stack: list[str] = []
    inside = escaped = False
    done = written = i = 0  # s[:done] is in pieces, written characters long
    n = len(s)
    while i < n:
        if inside and escaped:  # the character after a backslash: nothing to it
            escaped, i = False, i + 1
            continue
        found = (_IN_STRING if inside else _OUTSIDE).search(s, i)
        if found is None:
            break
        j, c = found.start(), found.group()
        i = j + 1
        if inside:
            if c == '"':
                inside = False
            elif c == "\\":
                escaped = True
            else:  # a raw newline in a string
                pieces += (s[done:j], "\\n")
                written += j - done
                newlines.add(written)
                written, done = written + 2, i
        elif c == '"':
            inside, escaped = True, False
        elif c in "{[":
            stack.append("}" if c == "{" else "]")
        elif stack and stack[-1] == c:
            stack.pop()
        else:
            return None
    pieces.append(s[done:])
    text = "".join(pieces)
    if inside:
        text = (text[:-1] if escaped else text) + '"'
    return text, newlines, "".join(reversed(stack))
