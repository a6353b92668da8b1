"""A call's arguments parsed and written again as compact JSON, at C speed, where the
libraries' own writers provably write them alike.

LangChain hands over ``json.dumps(parse_partial_json(text), separators=(",", ":"),
ensure_ascii=False)`` and the AI SDK ``JSON.stringify(secureJsonParse(text))``; their replicas'
``plain_calls`` ask :func:`rewritten` first and run their own writer only when it says None.

Invariants (``tests/core/clients/plain/test_compact.py`` holds each):
- The text is read by ``orjson.loads`` (strict: no lone surrogate, no control character in a
  string, no ``NaN``, no integer wider than 64 bits; anything else is None). On what it
  accepts, with no float anywhere, Python's ``json`` and ``JSON.parse`` read the same value:
  the same strings, the same integers, a repeated key's last value in its first place.
- The value is written by ``orjson.dumps``: compact, keys in order, each character of a string
  escaped alone (``"``, ``\\``, ``\\b \\f \\n \\r \\t``, the other control characters as
  ``\\u00xx``, everything else as it is), which is exactly what ``json.dumps(...,
  ensure_ascii=False)`` and the AI SDK's ``JSON.stringify`` do with each character: every code
  point but the surrogates is compared in the test, so it holds for every string.
- None (use the library's own writer) for any float, for a value nested too deep for orjson,
  and with ``js`` (``JSON.parse`` then ``JSON.stringify``): an integer beyond 2**53 (a double
  there), a key that starts with a digit (JavaScript puts array-index keys first), a
  ``__proto__`` or ``constructor`` key (``secureJsonParse`` refuses some).
- One writing per text, shared by both (and, kept, known to :func:`writes`: the agreement
  check then needs no parse of either, since orjson reads back exactly what it wrote of a
  value with no float); :func:`forget` drops them when the replicas are done.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

_EXACT: Final = 2**53
"""The largest integer a JavaScript number holds exactly (and every smaller one)."""
_GUARDED: Final = frozenset({"__proto__", "constructor"})


def rewritten(text: str, *, js: bool) -> str | None:
    """``text``'s JSON object written again compactly (the module's invariants), None when
    it is not an object or this writing cannot be shown to be the library's. Both writings
    are the same string where both apply: it is made once per text and handed to each
    replica that asks (kept until :func:`forget`, at most :data:`KEPT` texts)."""
    kept = _KEPT.get(id(text))
    if kept is None or kept[0] is not text:
        kept = _KEPT[id(text)] = (text, *_written(text))
        while len(_KEPT) > KEPT:
            del _KEPT[next(iter(_KEPT))]
    return None if js and not kept[2] else kept[1]


def writes(text: str, other: str) -> bool:
    """``other`` is the kept writing of ``text`` (so both hold the same JSON value: orjson
    reads back exactly what it wrote of a value with no float); False when none is kept."""
    kept = _KEPT.get(id(text))
    return kept is not None and kept[0] is text and kept[1] is not None and kept[1] == other


def forget() -> None:
    """Drop the kept writings (the replicas are done with these calls)."""
    _KEPT.clear()


KEPT: Final = 64
_KEPT: Final[dict[int, tuple[str, str | None, bool]]] = {}
"""By the text's identity (the text held, so its id is not another's): (the text, its
writing or None, whether JavaScript's writer gives it too)."""


def _written(text: str) -> tuple[str | None, bool]:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None, False
    if type(value) is not dict:
        return None, False
    plain, js = _plain(value)
    if not plain:
        return None, False
    try:
        return orjson.dumps(value).decode(), js
    except orjson.JSONEncodeError:  # nested too deep for orjson's writer
        return None, False


def _plain(value: Any) -> tuple[bool, bool]:
    """(No float anywhere; and also no key or integer JavaScript treats apart.)"""
    js = True
    todo = [value]
    pop, push = todo.pop, todo.extend
    while todo:
        node = pop()
        kind = type(node)
        if kind is str or node is None or kind is bool:
            continue
        if kind is dict:
            if js:
                for key in node:
                    if "0" <= key[:1] <= "9" or key in _GUARDED:
                        js = False
                        break
            push(node.values())
        elif kind is list:
            push(node)
        elif kind is int:
            if not -_EXACT <= node <= _EXACT:
                js = False
        else:  # a float
            return False, False
    return True, js
