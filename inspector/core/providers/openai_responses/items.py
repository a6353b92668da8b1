"""Every Responses output item that is a tool call, its kind, its input and its result.

Read from the pinned openai package's ``ResponseOutputItem`` union
(``openai/types/responses/response_output_item.py``) and the Responses streaming reference.

Invariants:
- :data:`ITEMS` lists every tool-call item type with its default
  :class:`~inspector.core.base.kinds.CallKind` and the field that holds its input: a string
  input (``arguments``, ``input``, ``code``) is the lane's text as streamed; an object input
  (``action``, ``operation``, ``queries``…) is shown as its compact JSON once the item is done.
- Who runs an item follows the Responses reference and the pinned package's types: the
  AGENT runs ``function_call``, ``custom_tool_call``, ``apply_patch_call``,
  ``local_shell_call``, ``computer_call`` (always: the computer use guide returns "interface
  actions for your code to execute", answered by a ``computer_call_output`` with a
  screenshot; the API has no hosted computer) and a ``shell_call`` on a ``local``
  environment; the PROVIDER runs ``web_search_call``, ``file_search_call``,
  ``code_interpreter_call``, ``image_generation_call``, ``mcp_call``, ``mcp_list_tools``
  (the remote MCP server is called by OpenAI), ``program`` (programmatic tool calling's
  JavaScript) and a server-side ``tool_search_call``. An ``mcp_approval_request`` is hosted
  too: the agent answers it (``mcp_approval_response``) but never runs the tool.
- Where the type alone does not decide the kind, the item does (:func:`kind_of_item`): a
  ``shell_call`` in a hosted ``environment`` (anything but ``local``) is hosted; a
  ``tool_search_call`` whose ``execution`` is ``client`` is the agent's (builtin); a
  ``custom_tool_call`` is hosted when the response's own tool list declares no custom tool by
  that name but a provider-run tool (xAI's server-side searches arrive as custom calls).
- :data:`OUTPUT_ITEMS` are the items that report a call's execution (``shell_call_output``,
  ``program_output``…): they become RESULT deltas beside the call their ``call_id`` names,
  never lanes. A hosted call's own ``output_item.done`` also carries what it produced
  (:data:`RESULT_FIELDS`): a RESULT beside it too.
- Pure tables and functions: nothing here keeps state.
"""

from __future__ import annotations

from typing import Any, Final

from inspector.core.base.kinds import CallKind

_F, _C, _B, _H = CallKind.FUNCTION, CallKind.CUSTOM, CallKind.BUILTIN, CallKind.HOSTED

ITEMS: Final[dict[str, tuple[str, str | None]]] = {
    "function_call": (_F, "arguments"),
    "custom_tool_call": (_C, "input"),
    "apply_patch_call": (_B, "operation"),
    "shell_call": (_B, "action"),
    "local_shell_call": (_B, "action"),
    "computer_call": (_B, "actions"),
    "tool_search_call": (_H, "arguments"),
    "web_search_call": (_H, "action"),
    "file_search_call": (_H, "queries"),
    "code_interpreter_call": (_H, "code"),
    "image_generation_call": (_H, None),
    "mcp_call": (_H, "arguments"),
    "mcp_list_tools": (_H, None),
    "mcp_approval_request": (_H, "arguments"),
    "program": (_H, "code"),
}
"""item type -> (default kind, the field holding its input; None: it has none)."""

LEGACY_INPUTS: Final[dict[str, str]] = {"computer_call": "action"}
"""item type -> the field holding its input in the older form of the item, read when the
field of :data:`ITEMS` is absent or null (a ``computer_call`` of the GA ``computer`` tool
sends batched ``actions``; the ``computer-use-preview`` tool one ``action``)."""

STRING_INPUTS: Final = frozenset({"arguments", "input", "code"})
"""Input fields that are text on the wire (streamed by delta events for some types)."""

OUTPUT_ITEMS: Final = frozenset(
    {
        "function_call_output",
        "custom_tool_call_output",
        "shell_call_output",
        "local_shell_call_output",
        "apply_patch_call_output",
        "computer_call_output",
        "tool_search_output",
        "program_output",
        "mcp_approval_response",
    }
)
"""Items reporting a call's execution (matched to it by ``call_id``): RESULT deltas."""

RESULT_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "web_search_call": ("status", "action"),
    "file_search_call": ("status", "results"),
    "code_interpreter_call": ("status", "outputs", "container_id"),
    "image_generation_call": ("status", "result", "revised_prompt", "error"),
    "mcp_call": ("status", "output", "error"),
    "mcp_list_tools": ("server_label", "tools", "error"),
    "shell_call": ("status",),
}
"""Hosted item types whose ``output_item.done`` reports what they produced."""

HOSTED_TOOL_TYPES: Final = frozenset(
    {
        "web_search",
        "web_search_preview",
        "x_search",
        "file_search",
        "code_interpreter",
        "image_generation",
        "mcp",
        "collections_search",
        "code_execution",
    }
)
"""Tool types of a request (or of ``response.tools``) that the provider runs."""


def item_input_field(item_type: str) -> str | None:
    """The field holding an item's input (None: no input, or not a call item)."""
    entry = ITEMS.get(item_type)
    return entry[1] if entry is not None else None


def item_input(item: dict[str, Any], item_type: str) -> tuple[str | None, Any]:
    """(the field holding the item's input, its value or None): the field of :data:`ITEMS`,
    or the item's older field (:data:`LEGACY_INPUTS`) when that one is absent or null."""
    field = item_input_field(item_type)
    value = item.get(field) if field is not None else None
    legacy = LEGACY_INPUTS.get(item_type)
    if value is None and legacy is not None and item.get(legacy) is not None:
        return legacy, item[legacy]
    return field, value


def kind_of_item(item: dict[str, Any], item_type: str, tools: list[Any] | None) -> str:
    """The item's kind (see the module docstring); ``tools`` is the response's tool list,
    when the stream gave one."""
    kind = ITEMS[item_type][0]
    if item_type == "shell_call":
        env = item.get("environment")
        if isinstance(env, dict) and env.get("type") not in (None, "local"):
            return _H
    elif item_type == "tool_search_call":
        return _B if item.get("execution") == "client" else _H
    elif item_type == "custom_tool_call" and tools:
        name = item.get("name")
        declared = any(
            isinstance(t, dict) and t.get("type") == "custom" and t.get("name") == name
            for t in tools
        )
        hosted = any(isinstance(t, dict) and t.get("type") in HOSTED_TOOL_TYPES for t in tools)
        if not declared and hosted:
            return _H
    return kind


def identity_field(item: dict[str, Any], item_type: str) -> str:
    """The field naming the item: ``call_id`` (what a tool reply echoes) for a function or
    custom call, always (an empty or missing one is a quirk to show); for other items when
    they have a non-empty one (xAI's hosted searches send ``""``), else their item ``id``."""
    if item_type == "function_call" or item_type == "custom_tool_call":
        return "call_id"
    call_id = item.get("call_id")
    if call_id is None or call_id == "":
        return "id"
    return "call_id"


def result_of(item_type: str, item: dict[str, Any]) -> dict[str, Any] | None:
    """What a done hosted item reports of its execution, or None."""
    fields = RESULT_FIELDS.get(item_type)
    if fields is None:
        return None
    got = {k: item[k] for k in fields if k in item}
    return got or None
