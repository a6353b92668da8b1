"""Every tool-call item of a Responses ``output``, as openai-python hands it over: the final
response's ``output`` list holds every item the model produced, whatever runs it, and an
agent reads each by its ``type``.

Invariants:
- An item is a tool-call item unless it is a ``message``, ``reasoning`` or ``compaction``,
  or an output/result item (``*_output``: ``shell_call_output``, ``tool_search_output`` …).
- Its kind (:class:`~inspector.core.base.kinds.CallKind`) is the item type's where that is
  unambiguous: ``function_call`` function, ``custom_tool_call`` custom, ``apply_patch_call``,
  ``local_shell_call`` and ``computer_call`` builtin (the agent runs them), the provider's
  own tools (``web_search_call``, ``file_search_call``, ``code_interpreter_call``,
  ``image_generation_call``, ``mcp_*``, ``program`` …) hosted. Where one type can be either,
  the response decides: a ``shell_call`` is hosted when it names a hosted ``environment``
  (anything but ``local``) or the same response carries its ``shell_call_output``; a
  ``tool_search_call`` is builtin when its ``execution`` is ``client``; a
  ``custom_tool_call`` whose ``call_id`` is not a ``call_…`` id of the agent's and whose
  status the response reports ``completed`` with no ``call_`` prefix (xAI's server-side
  searches, ``xs_call_…``) is hosted.
- Handed over as: ``id`` the ``call_id`` (the item's own ``id`` where it has none), ``name``
  the item's ``name`` (``server_label`` for ``mcp_list_tools``), ``arguments`` its input as
  the item holds it: a string as it is (``arguments``, ``input``, ``code``), anything else
  as compact JSON with its keys sorted (``action``, ``actions``, ``operation``, ``queries``;
  ``""`` when absent): the library hands over a model, whose field order is its own, not the wire's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from inspector.core.base.kinds import CallKind
from inspector.core.clients.base import HandedCall, as_text

NOT_CALLS: Final = frozenset({"message", "reasoning", "compaction"})
_KINDS: Final = {
    "function_call": CallKind.FUNCTION,
    "custom_tool_call": CallKind.CUSTOM,
    "apply_patch_call": CallKind.BUILTIN,
    "local_shell_call": CallKind.BUILTIN,
    "computer_call": CallKind.BUILTIN,
    "shell_call": CallKind.BUILTIN,
    "tool_search_call": CallKind.HOSTED,
}
_INPUT: Final = ("arguments", "input", "action", "actions", "operation", "code", "queries")
"""Where an item holds its input, in the order looked at."""


def _get(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)


def is_call_item(item: Any) -> bool:
    """Is ``item`` (a dict or the library's model) a tool-call item?"""
    kind = _get(item, "type")
    return isinstance(kind, str) and kind not in NOT_CALLS and not kind.endswith("_output")


def kind_of_item(item: Any, outputs: frozenset[Any] = frozenset()) -> str:
    """The item's kind (module invariants); ``outputs``: the ``call_id`` of every
    ``shell_call_output`` in the same response."""
    kind = _get(item, "type")
    found = _KINDS.get(kind, CallKind.HOSTED)
    if kind == "shell_call":
        env = _get(item, "environment")
        env_type = _get(env, "type") if env is not None else None
        if (env_type not in (None, "local")) or _get(item, "call_id") in outputs:
            return CallKind.HOSTED
    elif kind == "tool_search_call" and _get(item, "execution") == "client":
        return CallKind.BUILTIN
    elif kind == "custom_tool_call":
        call_id = _get(item, "call_id")
        if isinstance(call_id, str) and call_id.startswith("xs_call_"):
            return CallKind.HOSTED
    return found


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(_plain(value), separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def _plain(value: Any) -> Any:
    """A library model as plain data (its ``to_dict``), plain data as it is."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def handed_item(item: Any, outputs: frozenset[Any] = frozenset()) -> HandedCall:
    """One item as handed over (module invariants): kind, wire type, id, name, input."""
    kind = _get(item, "type")
    call_id = _get(item, "call_id")
    ident = call_id if call_id is not None else _get(item, "id")
    name = _get(item, "server_label") if kind == "mcp_list_tools" else _get(item, "name")
    value = next((_get(item, f) for f in _INPUT if _get(item, f) is not None), None)
    function = kind == "function_call"  # a plain call: no kind or type of its own
    return HandedCall(
        as_text(ident),
        as_text(name),
        _text(value),
        kind_of_item(item, outputs),
        None if function or not isinstance(kind, str) else kind,
    )


def shell_outputs(output: Iterable[Any]) -> frozenset[Any]:
    """The ``call_id`` of every ``shell_call_output`` of a response's ``output``."""
    return frozenset(
        _get(item, "call_id") for item in output if _get(item, "type") == "shell_call_output"
    )
