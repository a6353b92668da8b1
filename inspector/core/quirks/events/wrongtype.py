"""A wire field of the wrong type: the one delta a dialect records for it (:func:`wrong_type`),
and how the quirk scan reads it back (``wire_field_type``).

Wire data is untrusted: any field may hold any JSON value. A dialect that finds a field it
maps of the wrong type (a tool-call ``index`` that is an array, a ``finish_reason`` that is an
object, a Responses ``response`` that is a string) appends :func:`wrong_type`'s delta for it,
then maps the event as well as it can; the stages below never raise on such a value either
(:mod:`inspector.core.calls.wirefield`).

Invariants:
- One delta per wrong field of an event, appended where the dialect reads the field (before
  the delta it concerns), with the event's ``seq``. It is an UNKNOWN delta (the object holding
  the field is in ``raw``) whose value is ``{"wire_field_type": path, "expected": kind, "got":
  kind}``: the key is the quirk code itself, ``path`` as in JavaScript
  (``choices[0].delta.tool_calls[1].index``), the kinds JSON's (:func:`kind`).
- JSON ``null`` in an identity field (``id``, ``name``, ``index``) is a received value with a
  meaning of its own (see :mod:`inspector.core.base.model`), not a wrong type.
"""

from __future__ import annotations

from typing import Any, Final

from inspector.core.base.model import Delta, DeltaKind
from inspector.core.quirks.codes import WIRE_FIELD_TYPE

_KINDS: Final = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def kind(value: Any) -> str:
    """The JSON kind of a decoded value: null, boolean, integer, number, string, array or
    object (the Python type's name for anything else)."""
    return _KINDS.get(type(value)) or type(value).__name__


def wrong_type(seq: int, path: str, expected: str, value: Any, raw: Any = None) -> Delta:
    """The delta recording that the field at ``path`` of event ``seq`` holds ``value``
    where a value of kind ``expected`` belongs; ``raw`` is the decoded object holding it."""
    problem = {WIRE_FIELD_TYPE: path, "expected": expected, "got": kind(value)}
    return Delta(seq, DeltaKind.UNKNOWN, problem, raw)


def field_problem(d: Delta) -> dict[str, str] | None:
    """``d``'s wrong-type record (``wire_field_type``, ``expected``, ``got``), or None when
    ``d`` records none."""
    value = d.value
    if d.kind == DeltaKind.UNKNOWN and type(value) is dict and WIRE_FIELD_TYPE in value:
        return value
    return None


def describe(problem: dict[str, str]) -> str:
    """``choices[0].finish_reason: expected string, got object``."""
    return f"{problem[WIRE_FIELD_TYPE]}: expected {problem['expected']}, got {problem['got']}"
