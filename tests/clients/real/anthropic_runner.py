"""The real ``anthropic`` SDK, as an agent streams a message: the ``anthropic-sdk`` runner.

``AsyncAnthropic().messages.stream(...)`` then ``get_final_message()`` (the SDK's documented
streaming helper, ``anthropic/lib/streaming/_messages.py``); the calls handed over are the final
message's ``tool_use`` blocks (programmatic ones, with a ``caller``, included): ``id``, ``name``
and ``input`` as compact JSON in key order; its ``server_tool_use`` and ``mcp_tool_use`` blocks
(the provider ran them) are reported as hosted items, the same fields.
Retries are off (``max_retries=0``): the replay answers every request alike.
"""

from __future__ import annotations

from typing import Any

from clients.real import Outcome, Runner, as_json, call, outcome
from clients.streams import Stream


async def run(base_url: str, stream: Stream) -> Outcome:
    """One streamed message against ``base_url`` (see the module docstring)."""
    import anthropic

    tools: Any = [
        {"name": t.name, "description": t.description or "", "input_schema": t.parameters}
        for t in stream.tools()
    ]
    client = anthropic.AsyncAnthropic(base_url=base_url, api_key="sk-ant-test", max_retries=0)
    try:
        async with client.messages.stream(
            model=stream.model,
            max_tokens=1024,
            tools=tools,
            messages=[{"role": "user", "content": "What's the weather in Paris?"}],
        ) as message:
            final = await message.get_final_message()
    finally:
        await client.close()
    out = []
    for b in final.content:
        kind = getattr(b, "type", None)
        if kind not in ("tool_use", *HOSTED):
            continue
        fields = (_text(getattr(b, "id", None)), _text(getattr(b, "name", None)), as_json(b.input))
        out.append(call(*fields) if kind == "tool_use" else call(*fields, "hosted", kind))
    return outcome(out)


HOSTED = ("server_tool_use", "mcp_tool_use")
"""The content blocks of the provider's own tools (the inspector's hosted items)."""


def _text(value: Any) -> str | None:
    """An id or name as the golden holds it (the SDK does not check the wire's types)."""
    return value if value is None or isinstance(value, str) else str(value)


RUNNERS = {
    "anthropic-sdk": Runner(
        "anthropic-sdk", "anthropic", frozenset({"anthropic"}), run, imports=("anthropic",)
    ),
}
