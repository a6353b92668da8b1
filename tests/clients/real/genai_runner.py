"""The real ``google-genai`` SDK, as an agent streams a generation: the ``google-genai`` runner.

``genai.Client().models.generate_content_stream(...)`` (the SDK's documented streaming call;
synchronous, so it reads the body with httpx2 and ``_SseLineDecoder`` as a default install does:
the ``aiohttp`` extra would switch the async client to another line reader), run in a worker
thread. The calls handed over are every chunk's ``chunk.function_calls`` (the first
candidate's ``function_call`` parts), in order: ``id`` (None unless the wire sent one),
``name`` and ``args`` as compact JSON in key order (``null`` when the part has none); its
``executable_code`` parts (code Gemini runs) as hosted items, the code as their input. The
SDK's retries are off by default (no ``retry_options``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from clients.real import Outcome, Runner, as_json, call, outcome
from clients.streams import Stream


def _stream(base_url: str, stream: Stream) -> Outcome:
    from google import genai
    from google.genai import types

    declarations = [
        types.FunctionDeclaration(
            name=t.name, description=t.description, parameters_json_schema=t.parameters
        )
        for t in stream.tools()
    ]
    client = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=base_url))
    config = types.GenerateContentConfig(tools=[types.Tool(function_declarations=declarations)])
    calls: list[dict[str, Any]] = []
    try:
        for chunk in client.models.generate_content_stream(
            model=stream.model, contents="What's the weather in Paris?", config=config
        ):
            for part in _parts(chunk):
                fc, code = part.function_call, part.executable_code
                if fc is not None:
                    calls.append(call(fc.id, fc.name, as_json(fc.args)))
                elif code is not None:  # the provider runs it: a hosted item
                    calls.append(call(None, None, code.code or "", "hosted", "executableCode"))
    finally:
        client.close()
    return outcome(calls)


def _parts(chunk: Any) -> list[Any]:
    """The first candidate's parts (what ``chunk.function_calls`` reads its calls from)."""
    if not chunk.candidates or chunk.candidates[0].content is None:
        return []
    return list(chunk.candidates[0].content.parts or [])


async def run(base_url: str, stream: Stream) -> Outcome:
    """One streamed generation against ``base_url`` (see the module docstring)."""
    return await asyncio.to_thread(_stream, base_url, stream)


RUNNERS = {
    "google-genai": Runner(
        "google-genai", "google-genai", frozenset({"gemini"}), run, imports=("google.genai",)
    ),
}
