"""The hand-written tool loops, as an agent writes them, over the real openai SDK's chunks.

``by_index`` is the loop most hand-written agents use; ``by_id`` is the legacy accumulator of
the empty-id bug (calls looked up by id, ``""`` being an id like any other). They iterate
``AsyncOpenAI().chat.completions.create(stream=True)``: the real SDK's SSE decoding, status
errors and chunk models are what they read. ``inspector/core/clients/handwritten.py`` models
them; the goldens hold the two together.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import openai

Call = dict[str, Any]


async def by_index(chunks: AsyncIterator[Any]) -> list[Call]:
    """Entries keyed by ``tc.index``; every truthy string field concatenated."""
    calls: dict[Any, Call] = {}
    async for chunk in chunks:
        if not chunk.choices:
            continue
        for tc in chunk.choices[0].delta.tool_calls or []:
            entry = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
            if tc.id:
                entry["id"] += tc.id
            if tc.function:
                if tc.function.name:
                    entry["name"] += tc.function.name
                if tc.function.arguments:
                    entry["arguments"] += tc.function.arguments
    return list(calls.values())


async def by_id(chunks: AsyncIterator[Any]) -> list[Call]:
    """Fragments with an id are looked up by it (``""`` included); an unknown id opens a call
    only when the fragment names a function, else the fragment is lost. Fragments without an
    id continue the call at their index."""
    calls: list[Call] = []
    by_id_: dict[Any, Call] = {}
    at_index: dict[Any, Call] = {}
    async for chunk in chunks:
        if not chunk.choices:
            continue
        for tc in chunk.choices[0].delta.tool_calls or []:
            name = tc.function.name if tc.function else None
            arguments = tc.function.arguments if tc.function else None
            if tc.id is not None:
                call = by_id_.get(tc.id)
                if call is None:
                    if not name:
                        continue
                    call = {"id": tc.id, "name": name, "arguments": ""}
                    calls.append(call)
                    by_id_[tc.id] = call
                    at_index[tc.index] = call
            else:
                call = at_index.get(tc.index)
                if call is None:
                    call = {"id": None, "name": name or "", "arguments": ""}
                    calls.append(call)
                    at_index[tc.index] = call
            if name and not call["name"]:
                call["name"] = name
            if arguments:
                call["arguments"] += arguments
    return calls


LOOPS = {"by-index": by_index, "by-id": by_id}


def _text(value: Any) -> Any:
    return value if value is None or isinstance(value, str) else str(value)


async def run_loop(loop: str, base_url: str, model: str = "m") -> dict[str, Any]:
    """Run one loop against ``base_url``: ``{"calls", "error"}`` as the goldens hold them."""
    client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
    try:
        stream = await client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": "go"}], stream=True
        )
        calls = await LOOPS[loop](stream)
    except Exception as exc:  # the loop's or the SDK's exception, as the agent would see it
        return {"calls": [], "error": {"type": type(exc).__name__, "message": _message(exc)}}
    finally:
        await client.close()
    handed = [
        {"id": _text(c["id"]), "name": _text(c["name"]), "arguments": c["arguments"]} for c in calls
    ]
    return {"calls": handed, "error": None}


def _message(exc: BaseException) -> str:
    return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
