"""The registry's entries of the ``events`` family: what the events and the deltas that carry
no call fragment show (:mod:`inspector.core.quirks.events`)."""

from __future__ import annotations

from typing import Final

from inspector.core.quirks.codes import (
    BAD_FRAME,
    DATA_AFTER_DONE,
    EMPTY_FINISH_REASON,
    EMPTY_ROLE,
    ERROR_AFTER_200,
    EVENTS_NOT_SEPARATED,
    INVALID_UTF8,
    KEEPALIVE_COMMENTS,
    KEEPALIVE_IN_DATA,
    MALFORMED_FUNCTION_CALL,
    REPEATED_FINISH_REASON,
    UNDECODABLE_DATA,
    USAGE_ONLY_CHUNK,
    WIRE_FIELD_TYPE,
)
from inspector.core.quirks.registry.info import EVERY_DIALECT, Family, QuirkInfo, issue, pull

EVENTS: Final[Family] = "events"
_SCAN = ("events.scan",)
_DELTAS = ("events.deltas",)
_FINISHES = ("events.finishes",)
_OPENROUTER = "https://openrouter.ai/docs/api-reference/streaming"
_BIFROST = (issue("maximhq/bifrost", 2910), issue("maximhq/bifrost", 6784))

ENTRIES: Final = (
    QuirkInfo(
        EMPTY_FINISH_REASON,
        EVENTS,
        EVERY_DIALECT,
        "warning",
        'a finish reason is "" (neither null nor a reason)',
        _FINISHES,
        expected="Chat Completions: finish_reason is null until the choice ends, then one of "
        "stop, length, tool_calls, content_filter or function_call.",
        references=(
            pull("farion1231/cc-switch", 5093),
            issue("ollama/ollama", 4357),
            pull("qualcomm/GenieX", 1246),
        ),
    ),
    QuirkInfo(
        REPEATED_FINISH_REASON,
        EVENTS,
        EVERY_DIALECT,
        "warning",
        "more than one finish reason for one choice",
        _FINISHES,
        expected="Chat Completions sets a choice's finish_reason once, on its last chunk "
        "(Anthropic: one message_delta with the stop_reason).",
        references=(
            pull("sgl-project/sglang", 8417),
            issue("1jehuang/jcode", 1326),
            issue("QwenLM/qwen-code", 2402),
            pull("skye-harris/hass_local_openai_llm", 92),
            issue("ai-dynamo/dynamo", 4153),
        ),
    ),
    QuirkInfo(
        MALFORMED_FUNCTION_CALL,
        EVENTS,
        EVERY_DIALECT,
        "error",
        "the provider ended the turn saying the model's tool call was malformed (no call "
        "delivered)",
        _FINISHES,
        expected="Gemini documents both finish reasons (the model's function call was invalid; a "
        "tool call with no tool enabled): a candidate whose functionCall part carries the call "
        "was due instead.",
        references=(
            pull("NousResearch/hermes-agent", 83886),
            pull("mcowger/plexus", 748),
            pull("google-gemini/gemini-cli", 12965),
            issue("elastic/kibana", 227096),
        ),
    ),
    QuirkInfo(
        DATA_AFTER_DONE,
        EVENTS,
        EVERY_DIALECT,
        "warning",
        "events arrived after the end-of-stream marker",
        _SCAN,
        expected="Nothing follows the end marker: data: [DONE] (Chat Completions), message_stop "
        "(Anthropic), response.completed, .incomplete or .failed (Responses).",
        references=_BIFROST,
    ),
    QuirkInfo(
        USAGE_ONLY_CHUNK,
        EVENTS,
        EVERY_DIALECT,
        "info",
        "a final chunk with empty choices carrying only usage",
        _DELTAS,
    ),
    QuirkInfo(
        KEEPALIVE_COMMENTS,
        EVENTS,
        EVERY_DIALECT,
        "info",
        "SSE comment lines (keep-alives) between events",
        _SCAN,
        references=(_OPENROUTER,),
    ),
    QuirkInfo(
        KEEPALIVE_IN_DATA,
        EVENTS,
        EVERY_DIALECT,
        "warning",
        "a keep-alive comment re-wrapped as a data: line",
        _DELTAS,
        expected="A keep-alive is an SSE comment line (': …'); a data: line carries the dialect's "
        "JSON.",
        references=(issue("mnfst/llm-gateway", 2053),),
    ),
    QuirkInfo(
        EMPTY_ROLE,
        EVENTS,
        EVERY_DIALECT,
        "warning",
        'delta.role is ""',
        _DELTAS,
        expected="Chat Completions: delta.role, where sent (on a choice's first chunk), is "
        '"assistant"; later chunks omit it.',
        references=(issue("vercel/ai", 15464),),
    ),
    QuirkInfo(
        ERROR_AFTER_200,
        EVENTS,
        EVERY_DIALECT,
        "error",
        "the provider reported an error inside a 200 stream",
        _DELTAS,
        references=(_OPENROUTER, issue("block/goose", 8031)),
    ),
    QuirkInfo(
        UNDECODABLE_DATA,
        EVENTS,
        EVERY_DIALECT,
        "error",
        "a data: line that is not valid JSON (a frame cut mid-JSON?)",
        _DELTAS,
        expected="Each event's data is one whole JSON value of the dialect (or Chat Completions' "
        "[DONE]).",
        references=(issue("zai-org/GLM-5", 66),),
    ),
    QuirkInfo(
        EVENTS_NOT_SEPARATED,
        EVENTS,
        EVERY_DIALECT,
        "error",
        "several events in one (data: lines with no blank line between them)",
        _DELTAS,
        expected="Server-sent events end each event with a blank line; consecutive data: lines "
        "are one event, their data joined with a newline (WHATWG HTML).",
        references=(
            issue("anomalyco/opencode", 27365),
            pull("rexxars/eventsource-parser", 31),
        ),
    ),
    QuirkInfo(
        WIRE_FIELD_TYPE,
        EVENTS,
        EVERY_DIALECT,
        "error",
        "a field holds a value of the wrong type (the event is read without it)",
        _DELTAS,
        expected="Each field holds the type the dialect's API reference gives it (a tool-call "
        "index an integer, a finish reason a string, a choice an object …).",
    ),
    QuirkInfo(
        INVALID_UTF8,
        EVENTS,
        EVERY_DIALECT,
        "error",
        "bytes that are not valid UTF-8",
        _SCAN,
        expected="A text/event-stream body is UTF-8 (WHATWG HTML, server-sent events).",
    ),
    QuirkInfo(
        BAD_FRAME,
        EVENTS,
        EVERY_DIALECT,
        "error",
        "a binary frame that cannot be read whole (a CRC that does not match, a frame cut off, "
        "bytes outside any frame)",
        _SCAN,
        references=(issue("aws/aws-sdk-php", 3110),),
        expected="Every AWS event-stream frame's prelude and message CRC32s match its bytes, "
        "and the body ends where a frame does (the AWS event stream encoding).",
    ),
)
"""The family's codes, in report order among themselves."""
