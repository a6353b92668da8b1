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
from bisect import bisect_right
from typing import Any


def parse_partial_json(s: str) -> Any:
    """langchain-core's ``parse_partial_json`` (non-strict): the JSON value of ``s`` closed
    where it was cut off, None on a mismatched bracket; raises when nothing parses."""
    try:
        return json.loads(s, strict=False)
    except json.JSONDecodeError:
        pass
    new_chars: list[str] = []
    stack: list[str] = []
    inside = escaped = False
    for char in s:
        new_char = char
        if inside:
            if char == '"' and not escaped:
                inside = False
            elif char == "\n" and not escaped:
                new_char = "\\n"
            elif char == "\\":
                escaped = not escaped
            else:
                escaped = False
        elif char == '"':
            inside, escaped = True, False
        elif char == "{":
            stack.append("}")
        elif char == "[":
            stack.append("]")
        elif char in "}]":
            if stack and stack[-1] == char:
                stack.pop()
            else:
                return None
        new_chars.append(new_char)
    if inside:
        if escaped:
            new_chars.pop()
        new_chars.append('"')
    stack.reverse()
    ends = [0] * len(new_chars)
    total = 0
    for i, piece in enumerate(new_chars):
        total += len(piece)
        ends[i] = total
    while new_chars:
        try:
            return json.loads("".join(new_chars + stack), strict=False)
        except json.JSONDecodeError as exc:
            idx = bisect_right(ends, exc.pos)
            if idx < len(new_chars):
                del new_chars[idx:]
                del ends[idx:]
            else:
                new_chars.pop()
                ends.pop()
    return json.loads(s, strict=False)
