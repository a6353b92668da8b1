"""Fields read off a decoded wire object the same way in every dialect: a field of the wrong
type is flagged once, with its path (:mod:`inspector.core.quirks.events.wrongtype`), and identity
strings come back shared.

Invariants:
- :func:`index_at`, :func:`string_at`, :func:`identity_at`, :func:`object_at` and
  :func:`error_at` return the value as received (``OMITTED`` when absent) and append one
  ``wire_field_type`` problem for a value of the wrong type; they never raise.
- Identity strings (a call's id and name, an entry's or item's type, a Responses item id) are
  shared (:func:`shared`, :func:`identity_at`): the same name repeated in 200,000 calls is one
  string, not 200,000 (values and their identity checks are unchanged: a str equal to itself).
- Pure: nothing here does I/O; the only state is a small bounded table of recently seen
  identity strings (:func:`shared_id`), which changes no result.
"""

from __future__ import annotations

import sys
from typing import Any

import orjson

from inspector.core.base.model import OMITTED, AnyDelta
from inspector.core.quirks.events.wrongtype import wrong_type

_dumps = orjson.dumps


def index_at(obj: dict[str, Any], key: str, seq: int, out: list[AnyDelta], path: str = "") -> Any:
    """``obj[key]`` as received (OMITTED when absent), flagged unless it is an integer or null
    (an index is an identity field: null is a value of its own). ``path`` prefixes the key."""
    value = obj.get(key, OMITTED)
    if value is not OMITTED and value is not None and type(value) is not int:
        out.append(wrong_type(seq, path + key, "integer", value, obj))
    return value


def string_at(obj: dict[str, Any], key: str, seq: int, out: list[AnyDelta], path: str = "") -> Any:
    """``obj[key]`` as received (OMITTED when absent), flagged unless it is a string or null."""
    value = obj.get(key, OMITTED)
    if value is not OMITTED and value is not None and type(value) is not str:
        out.append(wrong_type(seq, path + key, "string", value, obj))
    return value


def identity_at(
    obj: dict[str, Any], key: str, seq: int, out: list[AnyDelta], path: str = ""
) -> Any:
    """:func:`string_at` for an identity field (id, name, type): a string comes back shared."""
    value = obj.get(key, OMITTED)
    if type(value) is str:
        return shared_id(value) if key in _ID_KEYS else _intern(value)
    if value is not OMITTED and value is not None:
        out.append(wrong_type(seq, path + key, "string", value, obj))
    return value


_intern = sys.intern

_IDS: dict[str, str] = {}
"""The ids seen last (at most ``_IDS_MAX``): a repeated one is handed back as the copy already
held. Bounded, unlike ``sys.intern``'s table, which holds an entry for every live string: a
stream of 200,000 calls, each with its own id, kept ~50-100 bytes a call there."""
_IDS_MAX = 256
_ID_KEYS = frozenset({"id", "call_id", "item_id"})


def shared(value: Any) -> Any:
    """``value``, the one shared copy of it when it is a string (``sys.intern``): a name or a
    type repeated in every call costs one object. For the few names and types of a stream."""
    return _intern(value) if type(value) is str else value


def shared_id(value: Any) -> Any:
    """``value``, the copy already held when the same id was seen recently (an item id on each
    of its 100,000 fragments costs one object), else itself: ids are mostly unique, so the
    table is small and bounded. Equal strings either way: nothing but memory depends on it."""
    if type(value) is not str:
        return value
    got = _IDS.get(value)
    if got is not None:
        return got
    if len(_IDS) >= _IDS_MAX:
        _IDS.clear()
    _IDS[value] = value
    return value


def object_at(obj: dict[str, Any], key: str, seq: int, out: list[AnyDelta], path: str = "") -> Any:
    """``obj[key]`` when it is an object; None otherwise, flagged unless absent or null."""
    value = obj.get(key)
    if type(value) is dict:
        return value
    if value is not None:
        out.append(wrong_type(seq, path + key, "object", value, obj))
    return None


def error_at(obj: dict[str, Any], key: str, seq: int, out: list[AnyDelta], path: str = "") -> None:
    """Flag ``obj[key]``, a provider error, unless it is an object, a string or null (or
    absent); flag its ``message`` unless that is a string or null. The error's text is made
    by :func:`error_message` from whatever it holds."""
    err = obj.get(key)
    if type(err) is dict:
        string_at(err, "message", seq, out, f"{path}{key}.")
    elif err is not None and type(err) is not str:
        out.append(wrong_type(seq, path + key, "object", err, obj))


def compact_json(value: Any) -> str:
    """Compact JSON text of an argument object (what ``JSON.stringify`` would produce)."""
    return _dumps(value, default=str).decode()
