"""``@ai-sdk/openai`` 4.0.118's Responses stream transform (``doStream`` of
``openai-responses-language-model.ts``), for the ``tool-call`` parts it emits.

What the SDK does, modelled here (tool names are the SDK's own; none is declared as a
provider tool by the runner, so none is renamed):
- ``function_call``: a ``tool-call`` when its ``output_item.done`` arrives (id ``call_id``,
  input the done item's ``arguments``); ``custom_tool_call`` likewise, input
  ``JSON.stringify(input)`` (the free-form text handed over as a JSON string).
- Provider-executed (hosted) parts: ``web_search_call``, ``file_search_call`` and
  ``image_generation_call`` when ADDED (id the item's ``id``, input ``{}``);
  ``code_interpreter_call`` at ``response.code_interpreter_call_code.done`` (input
  ``{"code", "containerId"}``); ``mcp_call`` (``mcp.<name>``, input its ``arguments``, id
  the item's or, after an approval request, that request's made-up id);
  ``mcp_approval_request`` (``generateId()``: ``0000000000000000``); a server
  ``tool_search_call`` (``{"arguments", "call_id": null}``); ``program``
  (``programmatic_tool_calling``, input ``{"code", "fingerprint"}``).
- The agent's built-in parts: ``apply_patch_call`` (when done and ``completed``, input
  ``{"callId", "operation"}``, the operation's keys in the schema's order),
  ``local_shell_call`` (``{"action": {"type": "exec", …}}``), ``shell_call``
  (``{"action": {"commands", "timeoutMs", "maxOutputLength"}}``: no shell tool is
  declared, so it is not provider-executed), a client ``tool_search_call``.
- An ``error`` event is an ``error`` part (``APICallError`` with its message); a
  ``response.failed`` with an ``error`` one too (``StreamProviderError``).

Not modelled: ``computer_call``; parallel tool-call expansion of undeclared tools; the
chunk schema's (zod) ``TypeValidationError`` parts.
"""

from __future__ import annotations

from typing import Any, Final

from inspector.core.clients.base import ClientRaised
from inspector.core.clients.vercel_ai.parts import PartsRun, js_stringify, provider_stream_error
from inspector.core.clients.vercel_ai.tracker import GENERATED

_ADDED_HOSTED: Final = {
    "web_search_call": "web_search",
    "file_search_call": "file_search",
    "image_generation_call": "image_generation",
}
_UNDEFINED: Final = object()


def _js_object(**fields: Any) -> dict[str, Any]:
    """A JavaScript object literal: a field whose value is ``undefined`` is left out."""
    return {k: v for k, v in fields.items() if v is not _UNDEFINED}


def _present(obj: dict[str, Any], key: str, nullish: bool = False) -> Any:
    """``obj[key]`` as JavaScript reads it (``undefined`` when absent; with ``nullish``,
    ``obj[key] ?? undefined``)."""
    value = obj.get(key, _UNDEFINED)
    return _UNDEFINED if nullish and value is None else value


def _operation(item: dict[str, Any]) -> Any:
    """The item's ``operation`` as the SDK's schema parsed it: zod writes an object's keys in
    the schema's order (``type``, ``path``, ``diff``), not the wire's."""
    operation = item.get("operation")
    if not isinstance(operation, dict):
        return operation
    order = ("type", "path", "diff")
    return {k: operation[k] for k in order if k in operation}


class ResponsesRun(PartsRun):
    """One Responses stream through ``@ai-sdk/openai``."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.ongoing: dict[Any, dict[str, Any]] = {}
        self.approvals: dict[Any, str] = {}

    def chunk(self, value: dict[str, Any]) -> None:
        kind = value.get("type")
        if kind == "response.output_item.added":
            self.added(value.get("output_index"), value["item"])
        elif kind == "response.output_item.done":
            self.done(value.get("output_index"), value["item"])
        elif kind == "response.code_interpreter_call_code.done":
            call = self.ongoing.get(value.get("output_index"))
            if call is not None and "container" in call:
                text = js_stringify({"code": value.get("code"), "containerId": call["container"]})
                self.emit(call["id"], "code_interpreter", text, True)
        elif kind == "response.failed":
            response = value.get("response")
            error = response.get("error") if isinstance(response, dict) else None
            if isinstance(error, dict):
                self.error_part(provider_stream_error(error))
        elif kind == "error":
            inner = value.get("error")
            message = (inner if isinstance(inner, dict) else value).get("message")
            self.error_part(
                ClientRaised("APICallError", "undefined" if message is None else str(message))
            )

    def added(self, index: Any, item: dict[str, Any]) -> None:
        kind = item.get("type")
        if kind in _ADDED_HOSTED:
            self.emit(item.get("id"), _ADDED_HOSTED[kind], "{}", True)
        elif kind == "code_interpreter_call":
            self.ongoing[index] = {"id": item.get("id"), "container": item.get("container_id")}
        elif kind == "tool_search_call":
            self.ongoing[index] = {"id": item.get("id")}
        elif kind == "apply_patch_call":
            self.ongoing[index] = {"id": item.get("call_id")}

    def done(self, index: Any, item: dict[str, Any]) -> None:
        kind = item.get("type")
        call = self.ongoing.pop(index, None)
        if kind == "function_call":
            self.emit(item.get("call_id"), item.get("name"), str(item.get("arguments")))
        elif kind == "custom_tool_call":
            self.emit(item.get("call_id"), item.get("name"), js_stringify(item.get("input")))
        elif kind == "tool_search_call" and call is not None:
            hosted = item.get("execution") == "server"
            id_ = call["id"] if hosted else (item.get("call_id") or item.get("id"))
            text = js_stringify(
                {"arguments": item.get("arguments"), "call_id": None if hosted else id_}
            )
            self.emit(id_, "tool_search", text, hosted)
        elif kind == "mcp_call":
            approval = item.get("approval_request_id")
            id_ = self.approvals.get(approval) if approval is not None else None
            id_ = id_ or item.get("id")
            self.emit(id_, f"mcp.{item.get('name')}", str(item.get("arguments")), True)
        elif kind == "mcp_approval_request":
            self.approvals[item.get("approval_request_id") or item.get("id")] = GENERATED
            self.emit(GENERATED, f"mcp.{item.get('name')}", str(item.get("arguments")), True)
        elif kind == "apply_patch_call" and call is not None and item.get("status") == "completed":
            text = js_stringify({"callId": item.get("call_id"), "operation": _operation(item)})
            self.emit(call["id"], "apply_patch", text)
        elif kind == "local_shell_call":
            self.emit(
                item.get("call_id"), "local_shell", js_stringify({"action": self._exec(item)})
            )
        elif kind == "shell_call":
            action = item["action"]
            shell = _js_object(
                commands=_present(action, "commands"),
                timeoutMs=_present(action, "timeout_ms", nullish=True),
                maxOutputLength=_present(action, "max_output_length", nullish=True),
            )
            self.emit(item.get("call_id"), "shell", js_stringify({"action": shell}))
        elif kind == "program":
            text = js_stringify(_js_object(code=_present(item, "code"),
                                           fingerprint=_present(item, "fingerprint")))  # fmt: skip
            self.emit(item.get("call_id"), "programmatic_tool_calling", text, True)

    @staticmethod
    def _exec(item: dict[str, Any]) -> dict[str, Any]:
        action = item["action"]
        return _js_object(
            type="exec",
            command=_present(action, "command"),
            timeoutMs=_present(action, "timeout_ms"),
            user=_present(action, "user"),
            workingDirectory=_present(action, "working_directory"),
            env=_present(action, "env"),
        )
