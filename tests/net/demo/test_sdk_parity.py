"""The official SDKs read the demo provider's streams and agree with the inspector's engine.

The ``openai`` and ``anthropic`` SDKs are pointed at a real demo provider on loopback. Their
HTTP client uses httpx's real network transport wrapped in :class:`Tee`, which only keeps a
copy of each response body's raw bytes, so the SDK and ``inspector.core`` judge the very same
stream. What the SDK assembles (ids, names, argument strings, finish reason, usage) must equal
what the engine reports. This is the proof that the demo provider speaks the real wire format.
The ``google-genai`` SDK is held to the same for Gemini (it is how we found that the demo
provider ignored the snake_case ``parameters_json_schema`` that SDK sends).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anthropic
import openai
import orjson
import pytest
import sdktee
from google import genai
from google.genai import types as gtypes
from openai.lib.streaming.chat import ChatCompletionStreamState
from sdktee import http_lib

from inspector.core.calls.accumulator import ToolCall
from inspector.core.calls.stream import StreamState
from inspector.core.providers import analyze_bytes
from inspector.net.demo import SCENARIOS

FAST = {"x-demo-chunk-delay": "0"}
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
    "required": ["city"],
}
SEARCH = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
TOOLS = [("get_weather", "Current weather", SCHEMA), ("web_search", "Search the web", SEARCH)]
QUESTION = "What's the weather in Paris?"


class Tee(sdktee.Tee):
    """:class:`sdktee.Tee`, read by the engine."""

    def last(self) -> StreamState:
        """The engine's analysis of the last body the SDK read."""
        return analyze_bytes(bytes(self.bodies[-1]))


@pytest.fixture
async def oai_tee() -> AsyncIterator[Tee]:
    tee = Tee(http_lib(openai))
    yield tee
    await tee.client.aclose()


@pytest.fixture
async def claude_tee() -> AsyncIterator[Tee]:
    tee = Tee(http_lib(anthropic))
    yield tee
    await tee.client.aclose()


@pytest.fixture
def oai(demo: str, oai_tee: Tee) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=demo + "/v1",
        api_key="demo",
        max_retries=0,
        default_headers=FAST,
        http_client=oai_tee.client,
    )


@pytest.fixture
def claude(demo: str, claude_tee: Tee) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(
        base_url=demo,
        api_key="demo",
        max_retries=0,
        default_headers=FAST,
        http_client=claude_tee.client,
    )


def engine_calls(state: StreamState) -> list[ToolCall]:
    assert state.acc is not None
    return state.acc.assembled()


# -- OpenAI Chat Completions ------------------------------------------------------------------

CHAT_TOOLS: Any = [
    {"type": "function", "function": {"name": n, "description": d, "parameters": s}}
    for n, d, s in TOOLS
]


@pytest.mark.parametrize(
    ("model", "usage"),
    [
        ("demo-clean", False),
        ("demo-clean", True),
        ("demo-parallel", True),
        ("demo-qwen-omitted", False),
        ("demo-usage-chunk", False),
    ],
)
async def test_openai_chat_stream_helper_matches_the_engine(
    oai: openai.AsyncOpenAI, oai_tee: Tee, model: str, usage: bool
) -> None:
    extra: Any = {"stream_options": {"include_usage": True}} if usage else {}
    done_events = []
    async with oai.chat.completions.stream(
        model=model, messages=[{"role": "user", "content": QUESTION}], tools=CHAT_TOOLS, **extra
    ) as stream:
        async for event in stream:
            if event.type == "tool_calls.function.arguments.done":
                done_events.append((event.name, event.arguments))
        final = await stream.get_final_completion()
    state = oai_tee.last()
    (choice,) = final.choices
    sdk = [(t.id, t.function.name, t.function.arguments) for t in choice.message.tool_calls or []]
    ours = [(c.id, c.name, c.arguments) for c in engine_calls(state)]
    assert sdk == ours and ours
    assert done_events == [(name, args) for _, name, args in ours]
    assert choice.finish_reason == state.finish_reason == "tool_calls"
    assert final.model == model and final.id.startswith("chatcmpl-")
    if usage or model == "demo-usage-chunk":
        assert final.usage is not None
        assert final.usage.model_dump(exclude_none=True) == state.usage
    else:
        assert final.usage is None and state.usage is None


async def test_openai_chat_create_with_the_stream_state(
    oai: openai.AsyncOpenAI, oai_tee: Tee
) -> None:
    helper = ChatCompletionStreamState()
    chunks = 0
    stream = await oai.chat.completions.create(
        model="demo-parallel",
        messages=[{"role": "user", "content": QUESTION}],
        tools=CHAT_TOOLS,
        stream=True,
    )
    async for chunk in stream:
        helper.handle_chunk(chunk)
        chunks += 1
    final = helper.get_final_completion()
    state = oai_tee.last()
    sdk = [
        (t.id, t.function.name, t.function.arguments)
        for t in final.choices[0].message.tool_calls or []
    ]
    assert sdk == [(c.id, c.name, c.arguments) for c in engine_calls(state)]
    assert chunks == sum(1 for e in state.events if e.data != "[DONE]")


async def test_openai_tool_loop_ends_with_text(oai: openai.AsyncOpenAI, oai_tee: Tee) -> None:
    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    async with oai.chat.completions.stream(
        model="demo-clean", messages=messages, tools=CHAT_TOOLS
    ) as stream:
        first = await stream.get_final_completion()
    message = first.choices[0].message
    (call,) = message.tool_calls or []
    messages += [
        message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "18 C and sunny"},
    ]
    async with oai.chat.completions.stream(
        model="demo-clean", messages=messages, tools=CHAT_TOOLS
    ) as stream:
        second = await stream.get_final_completion()
    (choice,) = second.choices
    assert choice.finish_reason == "stop" and not choice.message.tool_calls
    assert "18 C and sunny" in (choice.message.content or "")
    assert choice.message.content == oai_tee.last().full_text


async def test_openai_models_list_and_errors(oai: openai.AsyncOpenAI) -> None:
    page = await oai.models.list()
    assert [m.id for m in page.data] == list(SCENARIOS)
    messages: Any = [{"role": "user", "content": QUESTION}]
    cases: list[tuple[str, type[Exception], str | None]] = [
        ("fault-401", openai.AuthenticationError, "invalid_api_key"),
        ("fault-429", openai.RateLimitError, "rate_limit_exceeded"),
        ("fault-500", openai.InternalServerError, None),
        ("no-such-model", openai.NotFoundError, "model_not_found"),
    ]
    for model, error, code in cases:
        with pytest.raises(error) as caught:
            await oai.chat.completions.create(model=model, messages=messages, stream=True)
        assert getattr(caught.value, "code", None) == code
    with pytest.raises(openai.BadRequestError, match="only streams"):
        await oai.chat.completions.create(model="demo-clean", messages=messages)


# -- OpenAI Responses -------------------------------------------------------------------------

RESPONSES_TOOLS: Any = [
    {"type": "function", "name": n, "description": d, "parameters": s, "strict": False}
    for n, d, s in TOOLS
]


@pytest.mark.parametrize("model", ["demo-clean", "demo-parallel"])
async def test_openai_responses_stream_matches_the_engine(
    oai: openai.AsyncOpenAI, oai_tee: Tee, model: str
) -> None:
    done = []
    async with oai.responses.stream(model=model, input=QUESTION, tools=RESPONSES_TOOLS) as stream:
        async for event in stream:
            if event.type == "response.function_call_arguments.done":
                done.append(event.arguments)
        final = await stream.get_final_response()
    state = oai_tee.last()
    items = [o for o in final.output if o.type == "function_call"]
    calls = engine_calls(state)
    assert [(o.call_id, o.name, o.arguments) for o in items] == [
        (c.id, c.name, c.arguments) for c in calls
    ]
    assert [o.id for o in items] == [c.fragments[0].extra["item_id"] for c in calls]
    assert done == [c.arguments for c in calls]
    assert final.status == state.finish_reason == "completed"
    assert final.usage is not None and final.usage.total_tokens == state.usage["total_tokens"]


async def test_openai_responses_tool_loop_ends_with_text(
    oai: openai.AsyncOpenAI, oai_tee: Tee
) -> None:
    async with oai.responses.stream(
        model="demo-clean", input=QUESTION, tools=RESPONSES_TOOLS
    ) as stream:
        first = await stream.get_final_response()
    (call,) = [o for o in first.output if o.type == "function_call"]
    items: Any = [
        {"role": "user", "content": QUESTION},
        {
            "type": "function_call",
            "call_id": call.call_id,
            "name": call.name,
            "arguments": call.arguments,
        },
        {"type": "function_call_output", "call_id": call.call_id, "output": "18 C and sunny"},
    ]
    async with oai.responses.stream(
        model="demo-clean", input=items, tools=RESPONSES_TOOLS
    ) as stream:
        second = await stream.get_final_response()
    assert "18 C and sunny" in second.output_text
    assert second.output_text == oai_tee.last().full_text
    assert not [o for o in second.output if o.type == "function_call"]


# -- Anthropic Messages -----------------------------------------------------------------------

ANTHROPIC_TOOLS: Any = [{"name": n, "description": d, "input_schema": s} for n, d, s in TOOLS]


@pytest.mark.parametrize("model", ["demo-clean", "demo-parallel"])
async def test_anthropic_stream_matches_the_engine(
    claude: anthropic.AsyncAnthropic, claude_tee: Tee, model: str
) -> None:
    partial: dict[int, str] = {}
    async with claude.messages.stream(
        model=model,
        max_tokens=1024,
        tools=ANTHROPIC_TOOLS,
        messages=[{"role": "user", "content": QUESTION}],
    ) as stream:
        async for event in stream:
            if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                partial[event.index] = partial.get(event.index, "") + event.delta.partial_json
        final = await stream.get_final_message()
    state = claude_tee.last()
    calls = engine_calls(state)
    uses = [b for b in final.content if b.type == "tool_use"]
    assert [(b.id, b.name, b.input) for b in uses] == [
        (c.id, c.name, orjson.loads(c.arguments)) for c in calls
    ]
    assert [partial[c.index] for c in calls] == [c.arguments for c in calls]  # the raw strings
    texts = [b.text for b in final.content if b.type == "text"]
    assert texts == [state.full_text]
    assert final.stop_reason == state.finish_reason == "tool_use"
    assert final.id == state.deltas[0].value["message"]["id"] and final.model == model
    assert final.usage.output_tokens == state.usage["output_tokens"]


async def test_anthropic_tool_loop_ends_with_text(
    claude: anthropic.AsyncAnthropic, claude_tee: Tee
) -> None:
    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    async with claude.messages.stream(
        model="demo-clean", max_tokens=1024, tools=ANTHROPIC_TOOLS, messages=messages
    ) as stream:
        first = await stream.get_final_message()
    (use,) = [b for b in first.content if b.type == "tool_use"]
    messages += [
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": use.id, "content": "18 C and sunny"}
            ],
        },
    ]
    async with claude.messages.stream(
        model="demo-clean", max_tokens=1024, tools=ANTHROPIC_TOOLS, messages=messages
    ) as stream:
        second = await stream.get_final_message()
    assert second.stop_reason == "end_turn"
    (text,) = [b.text for b in second.content if b.type == "text"]
    assert "18 C and sunny" in text and "get_weather" in text
    assert text == claude_tee.last().full_text


async def test_anthropic_errors(claude: anthropic.AsyncAnthropic) -> None:
    messages: Any = [{"role": "user", "content": QUESTION}]
    cases: list[tuple[str, type[Exception]]] = [
        ("fault-401", anthropic.AuthenticationError),
        ("fault-429", anthropic.RateLimitError),
        ("fault-500", anthropic.InternalServerError),
        ("no-such-model", anthropic.NotFoundError),
    ]
    for model, error in cases:
        with pytest.raises(error):
            await claude.messages.create(model=model, max_tokens=64, messages=messages, stream=True)
    with pytest.raises(anthropic.BadRequestError, match="only streams"):
        await claude.messages.create(model="demo-clean", max_tokens=64, messages=messages)


# -- Gemini (google-genai) ------------------------------------------------------------------------

GEMINI_TOOLS = [
    gtypes.Tool(
        function_declarations=[
            gtypes.FunctionDeclaration(name=n, description=d, parameters_json_schema=s)
            for n, d, s in TOOLS
        ]
    )
]


@pytest.fixture
async def gemini_tee() -> AsyncIterator[Tee]:
    import httpx

    tee = Tee(httpx)
    yield tee
    await tee.client.aclose()


@pytest.fixture
def gemini(demo: str, gemini_tee: Tee) -> genai.Client:
    return genai.Client(
        api_key="demo",
        http_options=gtypes.HttpOptions(
            base_url=demo, headers=FAST, httpx_async_client=gemini_tee.client
        ),
    )


@pytest.mark.parametrize("model", ["demo-clean", "demo-parallel"])
async def test_gemini_stream_matches_the_engine(
    gemini: genai.Client, gemini_tee: Tee, model: str
) -> None:
    calls_seen: list[tuple[str, dict[str, Any]]] = []
    finish, usage = None, None
    stream = await gemini.aio.models.generate_content_stream(
        model=model, contents=QUESTION, config=gtypes.GenerateContentConfig(tools=GEMINI_TOOLS)
    )
    async for chunk in stream:
        for candidate in chunk.candidates or []:
            for part in (candidate.content.parts if candidate.content else None) or []:
                if part.function_call is not None:
                    fc = part.function_call
                    calls_seen.append((str(fc.name), dict(fc.args or {})))
            finish = candidate.finish_reason or finish
        usage = chunk.usage_metadata or usage
    state = gemini_tee.last()
    calls = engine_calls(state)
    assert calls_seen and all(args for _, args in calls_seen)  # arguments made it through
    assert calls_seen == [(c.name, orjson.loads(c.arguments)) for c in calls]
    assert finish is not None and finish.value == state.finish_reason == "STOP"
    assert usage is not None and usage.total_token_count == state.usage["totalTokenCount"]


async def _gemini_turn(gemini: genai.Client, contents: list[Any]) -> gtypes.Content:
    """One streamed turn (the demo provider only streams), its parts joined as the SDK gave
    them."""
    parts: list[gtypes.Part] = []
    stream = await gemini.aio.models.generate_content_stream(
        model="demo-clean",
        contents=contents,
        config=gtypes.GenerateContentConfig(tools=GEMINI_TOOLS),
    )
    async for chunk in stream:
        for candidate in chunk.candidates or []:
            parts += (candidate.content.parts if candidate.content else None) or []
    return gtypes.Content(role="model", parts=parts)


async def test_gemini_tool_loop_ends_with_text(gemini: genai.Client, gemini_tee: Tee) -> None:
    contents: list[Any] = [gtypes.Content(role="user", parts=[gtypes.Part(text=QUESTION)])]
    first = await _gemini_turn(gemini, contents)
    asked = [p.function_call for p in first.parts or [] if p.function_call is not None]
    assert asked, "the model asks for a tool first"
    contents += [
        first,
        gtypes.Content(
            role="user",
            parts=[
                gtypes.Part.from_function_response(
                    name=str(asked[0].name), response={"temperature_c": 21}
                )
            ],
        ),
    ]
    second = await _gemini_turn(gemini, contents)
    assert not any(p.function_call for p in second.parts or [])
    text = "".join(p.text or "" for p in second.parts or [])
    assert text and text == gemini_tee.last().full_text  # the result was read: an answer
