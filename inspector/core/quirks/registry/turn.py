"""The registry's entries of the ``turn`` family: what only the turn as a whole shows, once its
finish or end is known (:mod:`inspector.core.quirks.turn`)."""

from __future__ import annotations

from typing import Final

from inspector.core.quirks.codes import (
    FINISH_REASON_MISMATCH,
    MISSING_DONE,
    MISSING_FINISH_REASON,
    SILENT_TRUNCATION,
    SPARSE_INDEX,
    TEXT_MODE_TOOL_CALL,
)
from inspector.core.quirks.registry.info import (
    EVERY_DIALECT,
    PROVIDER_DEPENDENT,
    Family,
    QuirkInfo,
    blob,
    issue,
    pull,
)

TURN: Final[Family] = "turn"
_SCAN = ("turn.scan",)
_CUT_JSON = blob(
    "anthropics/anthropic-sdk-python",
    "tests/lib/streaming/fixtures/incomplete_partial_json_response.txt",
)

ENTRIES: Final = (
    QuirkInfo(
        SPARSE_INDEX,
        TURN,
        PROVIDER_DEPENDENT,
        "warning",
        "tool-call indexes do not start at 0 or skip numbers",
        _SCAN,
        expected="Chat Completions numbers a turn's calls 0, 1, 2 … by index, whatever text came "
        "before them.",
        references=(issue("vercel/ai", 18382),),
    ),
    QuirkInfo(
        FINISH_REASON_MISMATCH,
        TURN,
        EVERY_DIALECT,
        "warning",
        "tool calls were emitted but the finish reason is not a tool-call one",
        _SCAN,
        expected="A turn that ends in tool calls says so: finish_reason tool_calls (Chat "
        "Completions), stop_reason tool_use (Anthropic).",
        references=(
            issue("googleapis/python-genai", 2868),
            issue("vllm-project/vllm", 9209),
            issue("ollama/ollama", 5995),
            _CUT_JSON,
            pull("ai-dynamo/dynamo", 10988),
        ),
    ),
    QuirkInfo(
        SILENT_TRUNCATION,
        TURN,
        EVERY_DIALECT,
        "error",
        "a call's arguments stop mid-JSON but the finish reason does not say the output was cut "
        "off",
        _SCAN,
        expected="A response cut short says so: finish_reason length (Chat Completions), "
        "stop_reason max_tokens (Anthropic), status incomplete (Responses), finishReason "
        "MAX_TOKENS (Gemini).",
        references=(
            pull("NousResearch/hermes-agent", 75179),
            issue("NousResearch/hermes-agent", 74798),
            issue("NousResearch/hermes-agent", 10711),
            pull("ai-dynamo/dynamo", 13791),
        ),
    ),
    QuirkInfo(
        MISSING_FINISH_REASON,
        TURN,
        EVERY_DIALECT,
        "error",
        "the stream ended without any finish/stop reason",
        _SCAN,
        expected="Every response ends with its reason: finish_reason (Chat Completions), "
        "stop_reason in message_delta (Anthropic), the response's status (Responses), "
        "finishReason (Gemini).",
    ),
    QuirkInfo(
        MISSING_DONE,
        TURN,
        EVERY_DIALECT,
        "warning",
        "the stream ended without its end-of-stream marker",
        _SCAN,
        expected="The stream ends with its marker: data: [DONE] (Chat Completions), message_stop "
        "(Anthropic), response.completed, .incomplete or .failed (Responses).",
        references=(issue("maximhq/bifrost", 2910), issue("maximhq/bifrost", 6784)),
    ),
    QuirkInfo(
        TEXT_MODE_TOOL_CALL,
        TURN,
        EVERY_DIALECT,
        "warning",
        "tool calls written as text in the content, not parsed by the provider (<tool_call>, "
        "[TOOL_CALLS], <|python_tag|>, a JSON call object)",
        ("turn.scan", "events.deltas"),
        expected="With tools in the request, a call comes structured (Chat Completions "
        "tool_calls, Anthropic tool_use, a Responses function_call item, a Gemini functionCall "
        "part), not as text in the content.",
        references=(issue("ollama/ollama", 7825), issue("vllm-project/vllm", 5649)),
    ),
)
"""The family's codes, in report order among themselves."""
