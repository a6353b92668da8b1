"""When a client's call is the inspector's: the one comparison the driver, the words and the
Clients view use (re-exported by :mod:`.judge`).

Invariants: pure functions of two :class:`~.base.HandedCall`; an id the inspector lacks
matches any; arguments compare as strings, then as JSON values (``""`` is ``{}``); items that
are no function call compare as their library hands them (see :func:`same_name`,
:func:`same_input`); an object where the API promises a string never agrees.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from inspector.core.base.kinds import CallKind
from inspector.core.clients.base import HandedCall
from inspector.core.clients.plain.compact import writes


def same_id(expected: str | None, got: str | None) -> bool:
    """The client's id is the inspector's, or the inspector has none (any id will do)."""
    return not expected or expected == got


def same_arguments(expected: str, got: str) -> bool:
    """Equal strings, or equal JSON values; an empty string counts as ``{}``."""
    if expected == got or writes(expected, got):  # (a writing made by a plain reading)
        return True
    try:
        return bool(orjson.loads(expected or "{}") == orjson.loads(got or "{}"))
    except orjson.JSONDecodeError:
        return False


def same_name(want: HandedCall, have: HandedCall) -> bool:
    """The same name; or, for an item that is no function call and has no name on the wire
    (``apply_patch_call``, ``shell_call`` …), any name: the library names it by its type."""
    return (want.name or "") == (have.name or "") or (
        want.kind != CallKind.FUNCTION and not want.name
    )


def same_input(want: HandedCall, have: HandedCall) -> bool:
    """The same arguments (:func:`same_arguments`); a custom item's free-form text may be
    handed over as a JSON string of it (the AI SDK's ``input``); a built-in item's input is
    the library's own mapping of the item (``{"callId", "operation"}``…), so any."""
    if want.kind == CallKind.BUILTIN or same_arguments(want.arguments, have.arguments):
        return True
    if want.kind != CallKind.CUSTOM:
        return False
    try:
        return bool(orjson.loads(have.arguments) == want.arguments)
    except orjson.JSONDecodeError:
        return False


def same_call(want: HandedCall, have: HandedCall) -> bool:
    """The client hands this call over as the inspector assembled it: the same id (any, when
    the inspector has none), name (:func:`same_name`) and arguments (:func:`same_input`),
    and arguments of the same type (a string: an object where the library's API promises a
    string is no agreement)."""
    return (
        not have.object
        and same_id(want.id, have.id)
        and same_name(want, have)
        and same_input(want, have)
    )


def same_calls(expected: Sequence[HandedCall], got: Sequence[HandedCall]) -> bool:
    """Every call the same (:func:`same_call`), and as many."""
    return len(expected) == len(got) and all(
        same_call(e, g) for e, g in zip(expected, got, strict=True)
    )
