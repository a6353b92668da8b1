"""LangChain, run as an agent runs it: ``ChatOpenAI(base_url=...).bind_tools(tools)``,
``astream`` to the end, the chunks folded with ``+``; the calls are the merged message's
``.tool_calls`` (arguments: the JSON of the parsed ``args``, compact, keys in order) followed
by its ``.invalid_tool_calls`` (arguments: the raw ``args`` string). The openai client's
retries are off.
"""

from __future__ import annotations

from typing import Any

from clients.real import Outcome, Runner, as_json, call, outcome
from clients.streams import Stream


async def run(base_url: str, stream: Stream) -> Outcome:
    """``astream`` folded with ``+``, then ``.tool_calls`` and ``.invalid_tool_calls`` (the
    library's exception propagates: the harness records it)."""
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(model=stream.model, base_url=base_url, api_key="sk-test", max_retries=0)
    bound = model.bind_tools([t.openai() for t in stream.tools()])
    merged: Any = None
    async for chunk in bound.astream("go"):
        merged = chunk if merged is None else merged + chunk
    valid = [call(tc["id"], tc["name"], as_json(tc["args"])) for tc in merged.tool_calls]
    invalid = [call(tc["id"], tc["name"], tc["args"]) for tc in merged.invalid_tool_calls]
    return outcome([*valid, *invalid])


RUNNERS = {
    "langchain": Runner(
        "langchain",
        "langchain-openai",
        frozenset({"openai-chat"}),
        run,
        imports=("langchain_openai",),
    )
}
