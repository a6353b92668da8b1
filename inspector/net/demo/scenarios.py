"""The demo provider's scenarios: each is a "model" a client picks by name.

``demo-…`` scenarios play back a provider quirk from ``shared/docs/provider-quirks.md`` (or a
conforming stream); ``fault-…`` scenarios play back transport and HTTP failures.

Invariants:
- :data:`SCENARIOS` is the single table: name -> :class:`Scenario`, in listing order. The
  server and ``GET /v1/models`` read it; the table in ``docs/demo-provider.md`` is checked
  against it by the tests.
- ``quirks`` maps each dialect where the scenario has its own behaviour to the exact quirk
  codes (:mod:`inspector.core.quirks.codes` constants) that ``detect`` reports on that
  stream's
  first response (for ``fault-reset``: on the bytes that arrive before the reset). A dialect
  left out plays the conforming stream instead. The tests hold the server to this table,
  code for code.
- A follow-up request (the conversation ends with tool results) gets a conforming final text
  answer in every scenario except ``demo-never-stops``; faults apply to every request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inspector.core.quirks import codes as q

from .conversation import DIALECTS, MORE_DIALECTS
from .reported import REPORTED
from .written import WRITTEN

CHAT = "openai-chat"
RESP = "openai-responses"
ANTH = "anthropic"
GEM = "gemini"
COH = "cohere-v2"
INT = "gemini-interactions"
BED = "bedrock-converse"


@dataclass(frozen=True)
class Scenario:
    """One scenario: what it shows, where, and how many calls it makes."""

    name: str
    description: str
    quirks: Mapping[str, tuple[str, ...]]
    """Dialect -> quirk codes its stream shows (dialects absent here play the clean stream)."""
    calls: int = 1
    """Tool calls per response (parallel scenarios use up to 3 tools, or one tool 3 times)."""
    fault: str | None = None
    """For ``fault-…``: reset, stall, status, wrong-content-type, invalid-utf8, split."""
    status: int = 200
    """For status faults: the HTTP status returned."""

    @property
    def dialects(self) -> list[str]:
        """The dialects where this scenario has its own behaviour."""
        return [d for d in DIALECTS if d in self.quirks]

    @property
    def spoken(self) -> list[str]:
        """Every dialect where this scenario has its own behaviour, the demo's further dialects
        (:data:`.conversation.MORE_DIALECTS`) included."""
        return [*self.dialects, *(d for d in MORE_DIALECTS if d in self.quirks)]

    @property
    def codes(self) -> list[str]:
        """Every quirk code the scenario shows in any dialect, in report order."""
        shown = {c for codes in self.quirks.values() for c in codes}
        return [c for c in q.ORDER if c in shown]

    def to_model(self) -> dict[str, Any]:
        """The ``GET /v1/models`` entry (OpenAI list convention, plus what it shows)."""
        return {
            "id": self.name,
            "object": "model",
            "created": 0,
            "owned_by": "toolcall-inspector",
            "description": self.description,
            "dialects": self.spoken,
            "quirks": self.codes,
            "quirks_by_dialect": {d: list(self.quirks[d]) for d in self.spoken},
        }


def _all(*codes: str) -> dict[str, tuple[str, ...]]:
    return dict.fromkeys(DIALECTS, codes)


_TABLE = [
    Scenario(
        "demo-clean", "A conforming stream: one call of the first tool (all four dialects).", _all()
    ),
    Scenario("demo-parallel", "A conforming stream with three parallel calls.", _all(), 3),
    Scenario(
        "demo-glm-empty-string",
        'GLM-5.2 / the empty-id accumulator bug: continuations carry "id": "" and "name": ""'
        " (two parallel calls).",
        {CHAT: (q.EMPTY_STRING_CONTINUATION_ID, q.EMPTY_STRING_CONTINUATION_NAME)},
        2,
    ),
    Scenario(
        "demo-glm-empty-name",
        "zai-glm-5-2 relayed via Mistral: continuations omit id "
        'and carry "name": "" (a client that overwrites names loses the real one).',
        {CHAT: (q.EMPTY_STRING_CONTINUATION_NAME,)},
    ),
    Scenario(
        "demo-qwen-omitted",
        'Qwen: continuations omit id and name, then a trailing "arguments": "" chunk.',
        {CHAT: (q.TRAILING_EMPTY_ARGUMENTS,)},
    ),
    Scenario(
        "demo-missing-index",
        "Ollama < 0.4.7 / Gemini OpenAI-compat: tool-call entries carry no index.",
        {CHAT: (q.MISSING_INDEX,)},
    ),
    Scenario(
        "demo-parallel-index-0",
        "Ollama / Qwen3 on dynamo / Bedrock: parallel calls all at index 0, each with a new id.",
        {CHAT: (q.INDEX_REUSED_WITH_NEW_ID,)},
        3,
    ),
    Scenario(
        "demo-sparse-index",
        "Claude behind an OpenAI-compatible gateway: call indexes start at 1.",
        {CHAT: (q.SPARSE_INDEX,)},
        2,
    ),
    Scenario(
        "demo-id-every-chunk",
        "Fireworks / DeepSeek / vLLM: id, type and name repeated in every chunk.",
        {CHAT: (q.ID_REPEATED_EVERY_CHUNK, q.NAME_REPEATED_EVERY_CHUNK)},
    ),
    Scenario(
        "demo-new-id-every-delta",
        "LM Studio with Gemma: a new id on every delta.",
        {CHAT: (q.ID_CHANGED_MID_CALL,)},
    ),
    Scenario(
        "demo-null-string-id",
        'Mistral-hosted GLM: continuations carry the string "null" as id.',
        {CHAT: (q.NULL_STRING_ID,)},
    ),
    Scenario("demo-null-id", "Continuations carry JSON null as id and name.", {CHAT: (q.NULL_ID,)}),
    Scenario(
        "demo-cumulative-args",
        "DeepSeek / Qianfan: every fragment repeats the whole argument buffer so far.",
        {CHAT: (q.CUMULATIVE_ARGUMENTS,)},
    ),
    Scenario(
        "demo-args-object",
        "llama-server / Ollama: arguments as a JSON object, not a "
        "string (Anthropic: input sent whole in content_block_start).",
        {d: (q.ARGUMENTS_NOT_STRING,) for d in (CHAT, ANTH, BED)},
    ),
    Scenario(
        "demo-whole-call",
        "Groq / Mistral / GLM on vLLM: the whole call in one chunk.",
        {CHAT: (q.WHOLE_CALL_SINGLE_CHUNK,)},
    ),
    Scenario(
        "demo-orphan-entry",
        "BitFun fixtures: an id-only prelude, then a stray id-only orphan entry.",
        {CHAT: (q.ORPHAN_ID_ONLY_ENTRY,)},
    ),
    Scenario(
        "demo-duplicate-index",
        "vLLM speculative decoding: two entries with the same index in one chunk.",
        {CHAT: (q.DUPLICATE_INDEX_IN_CHUNK,)},
    ),
    Scenario(
        "demo-interleaved",
        "Two calls whose fragments interleave (openai-chat: a "
        "fragment after the next index opened; Anthropic: interleaved blocks, legal).",
        {CHAT: (q.FRAGMENT_AFTER_CLOSE,), ANTH: (), BED: ()},
        2,
    ),
    Scenario(
        "demo-finish-mismatch",
        'Gemini OpenAI-compat / vLLM / Ollama / dynamo #10988: finish_reason "stop" although '
        "calls were emitted.",
        {CHAT: (q.FINISH_REASON_MISMATCH,)},
    ),
    Scenario(
        "demo-usage-chunk",
        "OpenAI include_usage: a final usage-only chunk with empty choices.",
        {CHAT: (q.USAGE_ONLY_CHUNK,)},
    ),
    Scenario(
        "demo-keepalives",
        "OpenRouter: ': OPENROUTER PROCESSING' comments between "
        "events (openai-chat also one re-wrapped as data:).",
        {
            CHAT: (q.KEEPALIVE_COMMENTS, q.KEEPALIVE_IN_DATA),
            RESP: (q.KEEPALIVE_COMMENTS,),
            ANTH: (q.KEEPALIVE_COMMENTS,),
            GEM: (q.KEEPALIVE_COMMENTS,),
        },
    ),
    Scenario(
        "demo-error-after-200",
        "OpenRouter / goose: an error inside the 200 stream, "
        "mid-call (Anthropic: event: error; Responses: response.failed).",
        {
            CHAT: (q.ERROR_AFTER_200, q.MISSING_FINISH_REASON),
            RESP: (q.ERROR_AFTER_200, q.FINISH_REASON_MISMATCH),
            ANTH: (q.ERROR_AFTER_200, q.MISSING_FINISH_REASON, q.MISSING_DONE),
            COH: (q.ERROR_AFTER_200, q.FINISH_REASON_MISMATCH),
            INT: (q.ERROR_AFTER_200, q.MISSING_FINISH_REASON, q.MISSING_DONE),
            BED: (q.ERROR_AFTER_200, q.MISSING_FINISH_REASON),
            GEM: (q.ERROR_AFTER_200, q.MISSING_FINISH_REASON),
        },
    ),
    Scenario(
        "demo-no-done",
        "bifrost: the stream ends without [DONE] (Anthropic: no "
        "message_stop; Responses: no response.completed).",
        {
            CHAT: (q.MISSING_DONE,),
            ANTH: (q.MISSING_DONE,),
            RESP: (q.MISSING_FINISH_REASON, q.MISSING_DONE),
        },
    ),
    Scenario(
        "demo-data-after-done",
        "A connection held open after [DONE] that sends one more chunk.",
        {CHAT: (q.DATA_AFTER_DONE,)},
    ),
    Scenario(
        "demo-cut-frame",
        "GLM-5.1 on z.ai: a frame cut mid-JSON with the next data: inline.",
        {CHAT: (q.UNDECODABLE_DATA,)},
    ),
    Scenario(
        "demo-text-mode",
        "Ollama / vLLM without a tool parser: <tool_call>{…}</tool_call> written as content.",
        {CHAT: (q.TEXT_MODE_TOOL_CALL,)},
    ),
    Scenario(
        "demo-partial-args",
        "Gemini 3 on Vertex AI with streamFunctionCallArguments: a call's arguments stream as "
        "partialArgs, JSON-path leaf updates (nested objects, arrays, a string over several "
        "parts, numbers, booleans, null with the trip request's plan_trip).",
        {GEM: ()},
    ),
    Scenario(
        "demo-zero-arg",
        'A zero-argument tool: arguments "" and nothing more (Anthropic: partial_json "" only).',
        {
            CHAT: (q.ZERO_ARG_EMPTY_STRING,),
            ANTH: (q.ZERO_ARG_EMPTY_STRING,),
            COH: (q.ZERO_ARG_EMPTY_STRING,),
            BED: (q.ZERO_ARG_EMPTY_STRING,),
        },
    ),
    Scenario("demo-empty-role", 'Zhipu GLM-5: delta.role is "".', {CHAT: (q.EMPTY_ROLE,)}),
    Scenario(
        "demo-lmstudio-no-deltas",
        "LM Studio Responses: no argument deltas, the arguments only in the .done events.",
        {RESP: (q.ARGUMENTS_ONLY_IN_DONE,)},
    ),
    Scenario(
        "demo-done-mismatch",
        "Responses: the done events restate arguments that differ from the deltas.",
        {RESP: (q.DONE_ARGUMENTS_MISMATCH,)},
    ),
    Scenario(
        "demo-truncated",
        "Cut off mid-arguments: finish length (Anthropic max_tokens, Responses incomplete).",
        {d: (q.FINISH_REASON_MISMATCH,) for d in (CHAT, ANTH, RESP, COH, INT, BED)},
    ),
    Scenario(
        "demo-glm-retry",
        "The window's default: glm-5.2's empty-string continuations (the empty-id accumulator "
        "bug), and the first request cut off mid-arguments so the streaming retry shows as a "
        "second attempt.",
        {
            CHAT: (
                q.EMPTY_STRING_CONTINUATION_ID,
                q.EMPTY_STRING_CONTINUATION_NAME,
                q.FINISH_REASON_MISMATCH,
            )
        },
        calls=2,
    ),
    Scenario(
        "demo-truncated-then-valid",
        "The streaming-retry flow: the first request of a "
        "conversation is cut off mid-arguments; the identical retry gets a valid call.",
        {d: (q.FINISH_REASON_MISMATCH,) for d in (CHAT, ANTH, RESP, COH, INT, BED)},
    ),
    Scenario(
        "demo-never-stops",
        "Calls a tool again after every tool result (for testing a loop's step limit).",
        _all(),
    ),
    Scenario(
        "fault-reset",
        "Sends the first events, into the first call's arguments (Gemini: "
        "before its call), then resets the TCP connection.",
        {
            **_all(q.MISSING_FINISH_REASON, q.MISSING_DONE),
            GEM: (q.MISSING_FINISH_REASON,),
            BED: (q.MISSING_FINISH_REASON,),
        },
        fault="reset",
    ),
    Scenario(
        "fault-stall",
        "Sends the first events, into the first call's arguments (Gemini: "
        "before its call), then stalls for x-demo-stall seconds (default 30) before "
        "finishing.",
        _all(),
        fault="stall",
    ),
    Scenario(
        "fault-401",
        "HTTP 401 with the provider's authentication error body.",
        _all(),
        fault="status",
        status=401,
    ),
    Scenario(
        "fault-429",
        "HTTP 429 with a retry-after header and a rate-limit error body.",
        _all(),
        fault="status",
        status=429,
    ),
    Scenario(
        "fault-500",
        "HTTP 500 with the provider's server error body.",
        _all(),
        fault="status",
        status=500,
    ),
    Scenario(
        "fault-wrong-content-type",
        "HTTP 200 with a text/html page instead of an event stream.",
        _all(),
        fault="wrong-content-type",
    ),
    Scenario(
        "fault-invalid-utf8",
        "A 0xff byte inside a data: line.",
        _all(q.INVALID_UTF8),
        fault="invalid-utf8",
    ),
    Scenario(
        "fault-split-multibyte",
        "A multi-byte UTF-8 character split across two TCP writes.",
        _all(),
        fault="split",
    ),
]

_FAULTS = next(n for n, s in enumerate(_TABLE) if s.fault is not None)
_TABLE[_FAULTS:_FAULTS] = [Scenario(*row) for row in REPORTED]  # the reported, before faults
_TEXT = next(n for n, s in enumerate(_TABLE) if s.fault is not None)
_TABLE[_TEXT:_TEXT] = [Scenario(*row) for row in WRITTEN]  # calls written as text, then faults
_ITEMS = next(n for n, s in enumerate(_TABLE) if s.fault is not None)
_TABLE[_ITEMS:_ITEMS] = [  # items of every kind (.items), then faults
    Scenario(
        "demo-web-search",
        "A hosted web search with its results (Responses web_search_call with its sources;"
        " Anthropic server_tool_use web_search and its web_search_tool_result), then an answer"
        " citing them: hosted items, no call for the agent.",
        {RESP: (), ANTH: ()},
    ),
    Scenario(
        "demo-apply-patch",
        "A built-in apply_patch_call creating a file, its diff streamed as"
        " apply_patch_call_operation_diff deltas: the agent applies it.",
        {RESP: ()},
    ),
    Scenario(
        "demo-custom-sql",
        "A custom tool's free-form input: a SQL query streamed as custom_tool_call_input deltas,"
        " matching the Lark grammar the write_sql tool declares (never read as JSON).",
        {RESP: ()},
    ),
    Scenario(
        "demo-code-execution",
        "Gemini code execution: an executableCode part (Python the provider runs), its"
        " codeExecutionResult, then an answer quoting its output: a hosted item, no call for"
        " the agent.",
        {GEM: ()},
    ),
    Scenario(
        "demo-programmatic",
        "Anthropic programmatic tool calling: code execution (hosted server_tool_use) calls the"
        " first tool (tool_use with caller, input whole); after its result the next call"
        " arrives whole in message_start.",
        {ANTH: ()},
    ),
]

SCENARIOS: dict[str, Scenario] = {s.name: s for s in _TABLE}
"""Every scenario by name, in listing order."""

NOT_SHOWN = {
    q.NAME_CHANGED_MID_CALL: "demo-glm-empty-name shows it under the literal policy",
    q.WIRE_FIELD_TYPE: (
        "tests/core/test_hostile_wire.py and make fuzz send fields of the wrong type"
    ),
    q.BAD_FRAME: "tests/core/providers/bedrock_converse/test_bedrock_framing.py corrupts the "
    "CRCs of real Bedrock frames",
}
"""Quirk codes no scenario shows under the default policy, and where to see them instead."""
