"""LiteLLM, run as an agent runs it: ``litellm.acompletion(model="openai/<model>",
api_base=..., stream=True)`` iterated to the end, then ``litellm.stream_chunk_builder`` over
the chunks; the calls are ``choices[0].message.tool_calls`` (none when the builder returns
None): each call's ``id``, ``function.name`` and ``function.arguments`` (a custom tool call's
``custom.name`` and ``custom.input``).

Offline and quiet: the model cost map is read from the package (``LITELLM_LOCAL_MODEL_COST_MAP``,
set in ``clients.real``), no retries (``num_retries=0`` and the openai client's
``max_retries=0``), no callbacks, no telemetry, no debug banner.
"""

from __future__ import annotations

from typing import Any

from clients.real import Outcome, Runner, call, outcome
from clients.streams import Stream


def _litellm() -> Any:
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    litellm.num_retries = 0
    litellm.callbacks = []
    litellm.success_callback = []
    litellm.failure_callback = []
    return litellm


def _text(value: Any) -> str | None:
    return value if value is None or isinstance(value, str) else str(value)


def _handed(tc: Any) -> dict[str, str | None]:
    """One tool call as the agent reads it."""
    if getattr(tc, "type", None) == "custom":
        return call(_text(tc.id), _text(tc.custom.name), tc.custom.input)
    return call(_text(tc.id), _text(tc.function.name), tc.function.arguments)


async def run(base_url: str, stream: Stream) -> Outcome:
    """``acompletion(stream=True)`` to the end, then ``stream_chunk_builder`` (the library's
    exception propagates: the harness records it)."""
    litellm = _litellm()
    response = await litellm.acompletion(
        model=f"openai/{stream.model}",
        api_base=base_url,
        api_key="sk-test",
        messages=[{"role": "user", "content": "go"}],
        tools=[t.openai() for t in stream.tools()],
        stream=True,
        num_retries=0,
        max_retries=0,
    )
    chunks = [chunk async for chunk in response]
    built = litellm.stream_chunk_builder(chunks)
    calls = (built.choices[0].message.tool_calls or []) if built is not None else []
    return outcome(_handed(tc) for tc in calls)


RUNNERS = {
    "litellm": Runner("litellm", "litellm", frozenset({"openai-chat"}), run, imports=("litellm",))
}
