"""``@ai-sdk/openai`` 4.0.118's Responses stream transform (``doStream`` of
``openai-responses-language-model.ts``), for the ``tool-call`` parts it emits.

What the SDK does, modelled here: a ``function_call`` item is a ``tool-call`` when its
``response.output_item.done`` arrives (id ``call_id``, name, input the done item's
``arguments``); a ``custom_tool_call`` likewise, its input ``JSON.stringify(input)`` (so the
agent gets the free-form text as a JSON string); an ``error`` event, or a ``response.failed``
with an ``error``, is an ``error`` part (``StreamProviderError``) with its message.

Not modelled (each a known difference from the goldens): the provider-executed items
(web search, file search, code interpreter, image generation, MCP, shell in a container,
apply_patch, local_shell, tool search, program), each mapped by the SDK to a tool name and
an input of its own; parallel tool-call expansion of undeclared tools; the chunk schema's
(zod) ``TypeValidationError`` parts.
"""

from __future__ import annotations

from typing import Any

from inspector.core.clients.vercel_ai.parts import PartsRun, js_stringify, provider_stream_error


class ResponsesRun(PartsRun):
    """One Responses stream through ``@ai-sdk/openai``."""

    def chunk(self, value: dict[str, Any]) -> None:
        kind = value.get("type")
        if kind == "response.output_item.done":
            item = value["item"]
            if not isinstance(item, dict):
                return
            if item.get("type") == "function_call":
                self.emit(item.get("call_id"), item.get("name"), str(item.get("arguments")))
            elif item.get("type") == "custom_tool_call":
                self.emit(item.get("call_id"), item.get("name"), js_stringify(item.get("input")))
        elif kind == "response.failed":
            response = value.get("response")
            error = response.get("error") if isinstance(response, dict) else None
            if isinstance(error, dict):
                self.error_part(provider_stream_error(error))
        elif kind == "error":
            error = value.get("error") if isinstance(value.get("error"), dict) else value
            self.error_part(provider_stream_error(error))
