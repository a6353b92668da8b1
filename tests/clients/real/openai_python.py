"""openai-python, run as an agent runs it: ``client.chat.completions.stream(...)`` then
``get_final_completion()`` (openai-chat), ``client.responses.stream(...)`` then
``get_final_response()`` (openai-responses); the calls are what those hand over.

- chat: ``completion.choices[0].message.tool_calls`` (none when there is no choice): each
  call's ``id``, ``function.name`` and ``function.arguments``.
- Responses: every tool-call item of the final response's ``output``
  (:mod:`inspector.core.clients.openai_python.items` says which, their kind and fields):
  ``function_call`` as ``call_id``, ``name``, ``arguments``.
Ids and names of another type than a string are handed as ``str()``; arguments that are not a
string as compact JSON, ``None`` as ``""`` (the replica's ``HandedCall`` holds a string), and
marked ``object`` (the agent gets a dict where the API promises a string).
"""

from __future__ import annotations

import json
from typing import Any

from clients.real import Outcome, Runner, call, outcome
from clients.streams import Stream


def text(value: Any) -> str | None:
    """An id or name as handed over, as text."""
    return value if value is None or isinstance(value, str) else str(value)


def arguments(value: Any) -> str:
    """Arguments as handed over, as text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def chat_calls(completion: Any) -> list[dict[str, str | None]]:
    """The tool calls ``get_final_completion()`` hands over, read as an agent reads them."""
    if not completion.choices:
        return []
    handed = []
    for tc in completion.choices[0].message.tool_calls or []:
        fn = tc.function
        handed.append(
            call(text(tc.id), text(fn.name), arguments(fn.arguments), object=_object(fn.arguments))
        )
    return handed


def _object(value: Any) -> bool:
    return value is not None and not isinstance(value, str)


def response_calls(response: Any) -> list[dict[str, Any]]:
    """Every tool-call item of ``get_final_response()``'s output, as an agent reads it."""
    from inspector.core.clients.openai_python.items import handed_item, is_call_item, shell_outputs

    output = list(response.output or [])
    outputs = shell_outputs(output)
    out = []
    for item in output:
        if not is_call_item(item):
            continue
        if getattr(item, "type", None) == "function_call":
            value = item.arguments
            out.append(
                call(text(item.call_id), text(item.name), arguments(value), object=_object(value))
            )
            continue
        h = handed_item(item, outputs)
        out.append(call(h.id, h.name, h.arguments, h.kind, h.item_type))
    return out


def _client(base_url: str) -> Any:
    import openai

    return openai.AsyncOpenAI(base_url=base_url, api_key="sk-test", max_retries=0)


async def run_chat(base_url: str, stream: Stream) -> Outcome:
    """``chat.completions.stream()`` to the end, then ``get_final_completion()``."""
    client = _client(base_url)
    try:
        async with client.chat.completions.stream(
            model=stream.model,
            messages=[{"role": "user", "content": "go"}],
            tools=[t.openai() for t in stream.tools()],
        ) as events:
            completion = await events.get_final_completion()
    finally:
        await client.close()
    return outcome(chat_calls(completion))


async def run_responses(base_url: str, stream: Stream) -> Outcome:
    """``responses.stream()`` to the end, then ``get_final_response()``."""
    client = _client(base_url)
    tools = [
        {"type": "function", "name": t.name, "parameters": t.parameters}
        | ({"description": t.description} if t.description is not None else {})
        for t in stream.tools()
    ]
    try:
        async with client.responses.stream(model=stream.model, input="go", tools=tools) as events:
            response = await events.get_final_response()
    finally:
        await client.close()
    return outcome(response_calls(response))


async def run(base_url: str, stream: Stream) -> Outcome:
    """openai-python on one stream, by its dialect."""
    if stream.dialect == "openai-responses":
        return await run_responses(base_url, stream)
    return await run_chat(base_url, stream)


RUNNERS = {
    "openai-python": Runner(
        "openai-python",
        "openai",
        frozenset({"openai-chat", "openai-responses"}),
        run,
        imports=("openai",),
    )
}
