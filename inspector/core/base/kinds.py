"""What kind of tool-call item a lane holds, and who runs it.

Invariants:
- Every tool-call item of a stream becomes a lane (a
  :class:`~inspector.core.calls.toolcall.ToolCall`), whatever runs it. Its
  :class:`CallKind` says how its input is judged and whether it counts as one of the agent's
  calls; its ``item_type`` is the wire's own type, as received
  (``function_call``, ``custom_tool_call``, ``apply_patch_call``, ``web_search_call``,
  ``tool_use``, ``server_tool_use``, ``functionCall``, ``executableCode``…; ``function`` for
  Chat Completions; ``text:<format>`` for calls written in the text).
- ``function``: JSON arguments, judged as JSON against the declared schema. ``custom``:
  free-form input, checked against the format the request declared (text, regex, grammar),
  never as JSON. ``builtin``: a provider-defined tool the AGENT runs (apply_patch, shell on
  the agent's machine, local_shell, computer use), checked against its documented shape.
  ``hosted``: the provider runs it (web search, file search, code interpreter, MCP, server
  tools); it never counts as the agent's call and never changes ``valid`` or the exit code.
- A dialect says the kind on the delta that opens an item (:class:`ItemDelta`); a plain
  :class:`~inspector.core.base.model.ToolCallDelta` opens a ``function`` item (the hot path
  builds no extra field for it).
"""

from __future__ import annotations

from typing import Any, Final

from inspector.core.base.model import OMITTED, ToolCallDelta


class CallKind:
    """The four kinds of tool-call item (the ``kind`` of ``analyze --json``'s entries)."""

    FUNCTION: Final = "function"
    CUSTOM: Final = "custom"
    BUILTIN: Final = "builtin"
    HOSTED: Final = "hosted"

    ALL: Final = (FUNCTION, CUSTOM, BUILTIN, HOSTED)
    AGENT: Final = frozenset((FUNCTION, CUSTOM, BUILTIN))
    """The kinds the agent runs: the ones counted as the agent's calls."""


FUNCTION_ITEM: Final = "function"
"""The item type of a Chat Completions call (its entry's ``type``)."""


class ItemDelta(ToolCallDelta):
    """A tool-call fragment that also says what kind of item it belongs to.

    Dialects whose items are not all function calls (Responses, Anthropic, Gemini, Bedrock…)
    open an item with one; later fragments of the same item may be plain
    :class:`ToolCallDelta`. ``call_kind`` is one of :class:`CallKind`; ``item_type`` the
    wire's type as received; ``result`` what the stream reported of the item's execution
    (status, output, results), or None.
    """

    __slots__ = ("call_kind", "item_type", "result")

    def __init__(
        self,
        seq: int,
        pos: int,
        index: Any,
        id: Any,
        name: Any,
        arguments: Any,
        type: Any = OMITTED,
        args_object: bool = False,
        final: bool = False,
        extra: dict[str, Any] | None = None,
        *,
        call_kind: str = CallKind.FUNCTION,
        item_type: str = FUNCTION_ITEM,
        result: Any = None,
    ) -> None:
        super().__init__(seq, pos, index, id, name, arguments, type, args_object, final, extra)
        self.call_kind = call_kind
        self.item_type = item_type
        self.result = result


def kind_of(delta: ToolCallDelta) -> str:
    """The kind a delta opens: its ``call_kind``, or ``function`` for a plain delta."""
    return getattr(delta, "call_kind", CallKind.FUNCTION)


def item_type_of(delta: ToolCallDelta, default: str = FUNCTION_ITEM) -> str:
    """The wire item type a delta opens: its ``item_type``, or ``default``."""
    return getattr(delta, "item_type", default)
