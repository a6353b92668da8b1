"""The demo scenarios of the tool-call quirks reported in 2025-2026 issue threads of agents,
gateways and inference servers (docs/quirks.md cites each thread under its code).

Invariants:
- :data:`REPORTED` rows are ``(name, description, quirks by dialect, calls)``, the fields of
  :class:`~.scenarios.Scenario`; :mod:`.scenarios` lists them after the catalogued quirks and
  before the faults. The rules of that table hold here: the codes are exactly what ``detect``
  reports on the stream's first response, and a dialect left out plays the conforming stream.
- A dialect listed here has a rendering of that name in its module's ``VARIANTS``.
"""

from __future__ import annotations

from collections.abc import Mapping

from inspector.core.quirks.codes import (
    ARGUMENTS_BEFORE_IDENTITY,
    ARGUMENTS_REPLAYED,
    CUMULATIVE_ARGUMENTS,
    DONE_IDENTITY_MISMATCH,
    DUPLICATE_CALL_ID,
    EMPTY_FINISH_REASON,
    EMPTY_STRING_CONTINUATION_NAME,
    EVENTS_NOT_SEPARATED,
    FINISH_REASON_MISMATCH,
    FRAGMENT_AFTER_CLOSE,
    ID_REPEATED_EVERY_CHUNK,
    MALFORMED_FUNCTION_CALL,
    MISSING_CALL_ID,
    NAME_REPEATED_EVERY_CHUNK,
    OPENER_REPLAYED,
    REPEATED_FINISH_REASON,
    SILENT_TRUNCATION,
)

CHAT = "openai-chat"
RESP = "openai-responses"
ANTH = "anthropic"
GEM = "gemini"

Row = tuple[str, str, Mapping[str, tuple[str, ...]], int]

REPORTED: list[Row] = [
    (
        "demo-args-before-id",
        "Zoo-Code #695 (LiteLLM pass-through): the first argument fragment reaches the index "
        "before the call's id and name.",
        {CHAT: (ARGUMENTS_BEFORE_IDENTITY,)},
        1,
    ),
    (
        "demo-args-replayed",
        "elizaOS #16973 / Cerebras: after the deltas a consolidated entry sends id, name and "
        "the complete arguments again (concatenated: {…}{…}).",
        {CHAT: (ARGUMENTS_REPLAYED,)},
        1,
    ),
    (
        "demo-call-every-delta",
        "hermes-agent #5384 (a load balancer): every delta repeats the whole call, id, name and "
        "the arguments so far.",
        {CHAT: (ID_REPEATED_EVERY_CHUNK, NAME_REPEATED_EVERY_CHUNK, CUMULATIVE_ARGUMENTS)},
        1,
    ),
    (
        "demo-finish-per-call",
        "sglang #8417: one finish_reason chunk per call index (two parallel calls).",
        {CHAT: (REPEATED_FINISH_REASON,)},
        2,
    ),
    (
        "demo-finish-every-chunk",
        'jcode #1326 (OpenWebUI before vLLM): a finish_reason "stop" chunk after every chunk '
        "while the arguments still stream.",
        {CHAT: (FRAGMENT_AFTER_CLOSE, REPEATED_FINISH_REASON)},
        1,
    ),
    (
        "demo-no-id-empty-finish",
        'cc-switch #5093: a named call without an id, closed by finish_reason "".',
        {CHAT: (MISSING_CALL_ID, EMPTY_FINISH_REASON)},
        1,
    ),
    (
        "demo-opener-replayed",
        "qwen-code #5107 / #6250: the call's opener (same id and name, no arguments) arrives "
        "again after its arguments.",
        {CHAT: (OPENER_REPLAYED,)},
        1,
    ),
    (
        "demo-null-parameters",
        'A3S-Lab Code #139: continuations carry "name": "" and "parameters": null.',
        {CHAT: (EMPTY_STRING_CONTINUATION_NAME,)},
        1,
    ),
    (
        "demo-cut-at-stop",
        "hermes-agent #75179: the arguments stop halfway but the finish reason says stop "
        "(Anthropic: end_turn, as dynamo #13791 converted it; Responses: completed).",
        {
            CHAT: (FINISH_REASON_MISMATCH, SILENT_TRUNCATION),
            ANTH: (FINISH_REASON_MISMATCH, SILENT_TRUNCATION),
            RESP: (SILENT_TRUNCATION,),
        },
        1,
    ),
    (
        "demo-duplicate-call-id",
        "oh-my-pi #2055 / nanobot #3943: two parallel calls carry the same id.",
        {CHAT: (DUPLICATE_CALL_ID,)},
        2,
    ),
    (
        "demo-name-every-chunk",
        "hermes-agent #8259 (MiniMax via NVIDIA NIM): every continuation repeats the full name, "
        "not the id.",
        {CHAT: (NAME_REPEATED_EVERY_CHUNK,)},
        1,
    ),
    (
        "demo-done-id-cleared",
        "cc-switch #4671: output_item.done and response.completed restate the call with "
        '"call_id": "" (and "name": "").',
        {RESP: (DONE_IDENTITY_MISMATCH,)},
        1,
    ),
    (
        "demo-events-not-separated",
        "opencode #27365 (GLM-4.7 on Baseten): two events' data: lines with no blank line "
        "between them arrive as one event (Anthropic too).",
        {CHAT: (EVENTS_NOT_SEPARATED,), ANTH: (EVENTS_NOT_SEPARATED,)},
        1,
    ),
    (
        "demo-malformed-call",
        "Gemini 3 (hermes-agent #83886): the call leaks as text, then finishReason "
        "MALFORMED_FUNCTION_CALL and no call.",
        {GEM: (MALFORMED_FUNCTION_CALL,)},
        1,
    ),
]
"""The reported quirks' scenarios, in listing order."""
