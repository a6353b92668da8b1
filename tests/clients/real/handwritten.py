"""The hand-written tool loops, as an agent writes them, over the real openai SDK's chunks.

``by_index`` is the loop most hand-written agents use; ``by_id`` is the legacy accumulator of
the empty-id bug (calls looked up by id, ``""`` being an id like any other). They iterate
``AsyncOpenAI().chat.completions.create(stream=True)``: the real SDK's SSE decoding, status
errors and chunk models are what they read. ``inspector/core/clients/handwritten/loops.py`` models
them; the goldens hold the two together.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from clients.real import Outcome, Runner, call, outcome
from clients.streams import Stream

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
CHAT = frozenset({"openai-chat"})


def _text(value: Any) -> Any:
    return value if value is None or isinstance(value, str) else str(value)


async def run_loop(loop: str, base_url: str, stream: Stream) -> Outcome:
    """Run one loop over the real SDK's chunks from ``base_url`` (the SDK's or the loop's
    exception propagates: the harness records it)."""
    import openai

    client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
    try:
        chunks = await client.chat.completions.create(
            model=stream.model,
            messages=[{"role": "user", "content": "go"}],
            tools=[t.openai() for t in stream.tools()],  # type: ignore[misc]
            stream=True,
        )
        calls = await LOOPS[loop](chunks)
    finally:
        await client.close()
    return outcome(call(_text(c["id"]), _text(c["name"]), c["arguments"]) for c in calls)


def _runner(name: str) -> Runner:
    async def run(base_url: str, stream: Stream) -> Outcome:
        return await run_loop(name, base_url, stream)

    return Runner(name, "openai", CHAT, run, imports=("openai",))


RUNNERS = {name: _runner(name) for name in LOOPS}
