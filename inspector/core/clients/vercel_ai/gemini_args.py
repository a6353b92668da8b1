"""``@ai-sdk/google``'s ``GoogleJSONAccumulator``: the arguments of a Gemini 3 call streamed
as ``partialArgs`` (``[{"jsonPath": "$.a.b[0]", "stringValue" | "numberValue" | "boolValue"
| "nullValue", "willContinue"}]``), built into one object whose ``JSON.stringify`` is the
call's input when the call finishes.

Invariants (the SDK's ``processPartialArgs``, ``parsePath``, ``normalizeAndCheckIndexes``,
``getNestedValue``, ``setNestedValue``, ``resolvePartialArgValue``):
- A path ``$.a.b[0]`` is the segments ``a``, ``b``, ``0``; a trailing ``[]`` makes an empty
  array there; ``$`` alone and an empty path are skipped; an index past an array's end is
  skipped.
- A string value for a path that already holds a value is appended to it (``+``); a value
  for a path is set (containers made on the way: an array before an index, else an
  object); no value: nothing when the path holds one or the entry will continue, else an
  empty object (array for ``[]``).
Arrays are Python lists, objects dicts (keys in insertion order).
"""

from __future__ import annotations

import re
from typing import Any, Final

from inspector.core.clients.vercel_ai.v8_json import number_text

_MISSING: Final = object()
_INDEX: Final = re.compile(r"\[(\d+)\]")


def parse_path(raw: str) -> list[str | int]:
    """``parsePath``."""
    segments: list[str | int] = []
    for part in raw.split("."):
        bracket = part.find("[")
        if bracket == -1:
            segments.append(part)
            continue
        if bracket > 0:
            segments.append(part[:bracket])
        segments += [int(m) for m in _INDEX.findall(part)]
    return segments


def _has(container: Any, key: str | int) -> bool:
    if isinstance(container, list):
        return isinstance(key, int) and 0 <= key < len(container)
    return isinstance(container, dict) and str(key) in container


def _get(container: Any, key: str | int) -> Any:
    if isinstance(container, list):
        return container[int(key)]
    return container[str(key)]


def _set(container: Any, key: str | int, value: Any) -> None:
    if isinstance(container, list) and isinstance(key, int):
        if key < len(container):
            container[key] = value
        else:
            container.extend([None] * (key - len(container)))
            container.append(value)
    elif isinstance(container, dict):
        container[str(key)] = value


def _normalized(obj: Any, segments: list[str | int]) -> bool:
    """``normalizeAndCheckIndexes``: index-like strings under arrays become indexes; an
    index past its array's end fails."""
    current = obj
    for i, segment in enumerate(segments):
        if (
            isinstance(current, list)
            and isinstance(segment, str)
            and segment.isdigit()
            and str(int(segment)) == segment
            and int(segment) < 2**32 - 1
        ):
            segment = segments[i] = int(segment)
        if isinstance(segment, int):
            length = len(current) if isinstance(current, list) else 0 if current is None else None
            if length is not None and segment > length:
                return False
        current = _get(current, segment) if _has(current, segment) else None
    return True


def _nested(obj: Any, segments: list[str | int]) -> Any:
    current = obj
    for segment in segments:
        if not isinstance(current, dict | list) or not _has(current, segment):
            return _MISSING
        current = _get(current, segment)
    return current


def _put(obj: Any, segments: list[str | int], value: Any) -> None:
    current = obj
    for i, segment in enumerate(segments[:-1]):
        if not _has(current, segment) or _get(current, segment) is None:
            _set(current, segment, [] if isinstance(segments[i + 1], int) else {})
        current = _get(current, segment)
    _set(current, segments[-1], value)


def _resolved(arg: dict[str, Any]) -> Any:
    for key in ("stringValue", "numberValue", "boolValue"):
        if arg.get(key) is not None:
            return arg[key]
    return None if "nullValue" in arg else _MISSING


def add_partial_args(args: dict[str, Any], partial: list[Any]) -> None:
    """``processPartialArgs``: ``partial`` read into ``args`` (see the module)."""
    for arg in partial:
        if not isinstance(arg, dict) or not isinstance(arg.get("jsonPath"), str):
            continue
        path: str = arg["jsonPath"]
        terminator = path.endswith("[]")
        raw = re.sub(r"^\$\.", "", path[:-2] if terminator else path)
        if not raw or raw == "$":
            continue
        segments = parse_path(raw)
        if not _normalized(args, segments):
            continue
        existing = _nested(args, segments)
        if arg.get("stringValue") is not None and existing is not _MISSING:
            _put(args, segments, _plus(existing, arg["stringValue"]))
            continue
        value = _resolved(arg)
        if value is _MISSING:
            if existing is not _MISSING or arg.get("willContinue") is True:
                continue
            _put(args, segments, [] if terminator else {})
            continue
        _put(args, segments, value)


def _plus(existing: Any, more: str) -> str:
    """JavaScript's ``existing + more`` for a string ``more``."""
    if isinstance(existing, str):
        return existing + more
    if isinstance(existing, bool):
        return ("true" if existing else "false") + more
    if isinstance(existing, int | float):
        return number_text(float(existing)) + more
    if existing is None:
        return "null" + more
    return ("[object Object]" if isinstance(existing, dict) else "") + more
