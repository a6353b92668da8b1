"""The Interactions API's step (and content) types, sorted by what the inspector makes of them.

A step is a typed item of the model's turn (``model_output``, ``thought``, ``function_call``,
``google_search_call`` …). Which are tool-call items, who runs them, and which report a call's
result is decided here once, from the type's name as Google spells it:

- ``function_call``: the agent's call (kind ``function``): JSON arguments, streamed as
  ``arguments_delta`` strings (or given whole as an object).
- ``*_call`` otherwise (``google_search_call``, ``code_execution_call``, ``url_context_call``,
  ``mcp_server_tool_call``, ``file_search_call``, ``google_maps_call`` …): a tool Google runs
  (kind ``hosted``): never one of the agent's calls, never judged as JSON.
- ``*_result`` (``function_result``, ``google_search_result`` …): what a call returned, joined
  to it by ``call_id`` (a RESULT delta, never a call).
"""

from __future__ import annotations

from typing import Final

from inspector.core.base.kinds import CallKind

FUNCTION: Final = "function_call"
CALL_SUFFIX: Final = "_call"
RESULT_SUFFIX: Final = "_result"

TEXT_STEPS: Final = frozenset({"model_output", "text"})
THOUGHT_STEPS: Final = frozenset({"thought"})


def call_kind(step_type: object) -> str | None:
    """The :class:`CallKind` of a step of ``step_type``, or None when it is no call."""
    if type(step_type) is not str:
        return None
    if step_type == FUNCTION:
        return CallKind.FUNCTION
    if step_type.endswith(CALL_SUFFIX):
        return CallKind.HOSTED
    return None


def is_result(step_type: object) -> bool:
    """A step that reports a call's result (``*_result``)."""
    return type(step_type) is str and step_type.endswith(RESULT_SUFFIX)
