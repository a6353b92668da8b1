"""The registry's entries of the ``calls`` family: what one assembled call's fragments show, and
what the accumulator concluded about it (:mod:`inspector.core.quirks.calls`)."""

from __future__ import annotations

from typing import Final

from inspector.core.quirks.codes import (
    ARGUMENTS_ONLY_IN_DONE,
    ARGUMENTS_REPLAYED,
    CUMULATIVE_ARGUMENTS,
    DONE_ARGUMENTS_MISMATCH,
    FRAGMENT_AFTER_CLOSE,
    ID_CHANGED_MID_CALL,
    NAME_CHANGED_MID_CALL,
    OPENER_REPLAYED,
    ORPHAN_ID_ONLY_ENTRY,
    TRAILING_EMPTY_ARGUMENTS,
    WHOLE_CALL_SINGLE_CHUNK,
    ZERO_ARG_EMPTY_STRING,
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

CALLS: Final[Family] = "calls"
_SCAN = ("calls.scan",)
_HERMES_5384 = pull("NousResearch/hermes-agent", 5384)
_NAME_OVERWRITTEN = (issue("tontinton/maki", 785), pull("mcowger/plexus", 766))
_ALIBABA = blob("vercel/ai", "packages/alibaba/src/__fixtures__/alibaba-tool-call.chunks.txt")
_NO_ARGS = blob(
    "vercel/ai", "packages/anthropic/src/__fixtures__/anthropic-tool-no-args.chunks.txt"
)

ENTRIES: Final = (
    QuirkInfo(
        ID_CHANGED_MID_CALL,
        CALLS,
        EVERY_DIALECT,
        "warning",
        "a continuation carries a different id without a name",
        _SCAN,
        expected="Chat Completions sends a call's id once, in its first tool_calls entry: the "
        "entries that continue it omit id.",
        references=(issue("NousResearch/hermes-agent", 106943),),
    ),
    QuirkInfo(
        NAME_CHANGED_MID_CALL,
        CALLS,
        EVERY_DIALECT,
        "warning",
        "a continuation carries a different name",
        _SCAN,
        expected="Chat Completions sends function.name once, in a call's first tool_calls entry: "
        "the entries that continue it carry only arguments.",
        references=_NAME_OVERWRITTEN,
    ),
    QuirkInfo(
        CUMULATIVE_ARGUMENTS,
        CALLS,
        EVERY_DIALECT,
        "error",
        "each fragment repeats the whole argument buffer so far",
        _SCAN,
        expected="Each argument fragment is the next piece of the text, to be appended (Chat "
        "Completions function.arguments, Anthropic partial_json, Responses "
        "function_call_arguments.delta).",
        references=(
            pull("NousResearch/hermes-agent", 35718),
            issue("icoretech/codex-pooler", 193),
            _HERMES_5384,
        ),
    ),
    QuirkInfo(
        ARGUMENTS_REPLAYED,
        CALLS,
        EVERY_DIALECT,
        "error",
        "a fragment repeats the complete arguments already streamed (concatenated: {…}{…})",
        _SCAN,
        expected="Argument fragments are appended and none restates the text before it (the "
        "Responses API restates the whole only in its .done events).",
        references=(
            pull("elizaOS/eliza", 16973),
            pull("elizaOS/eliza", 9766),
            _HERMES_5384,
        ),
    ),
    QuirkInfo(
        WHOLE_CALL_SINGLE_CHUNK,
        CALLS,
        PROVIDER_DEPENDENT,
        "info",
        "a whole call (id, name and complete arguments) in one chunk",
        _SCAN,
        references=(issue("GoogleCloudPlatform/kubectl-ai", 559),),
    ),
    QuirkInfo(
        ARGUMENTS_ONLY_IN_DONE,
        CALLS,
        EVERY_DIALECT,
        "warning",
        "no argument deltas: the arguments arrived only in the done event",
        _SCAN,
        expected="Responses streams a call's arguments as response.function_call_arguments.delta "
        "events before the .done event that restates them.",
    ),
    QuirkInfo(
        DONE_ARGUMENTS_MISMATCH,
        CALLS,
        EVERY_DIALECT,
        "error",
        "the done event restates arguments that differ from the deltas",
        _SCAN,
        expected="Responses: function_call_arguments.done and output_item.done restate the very "
        "arguments the delta events streamed.",
    ),
    QuirkInfo(
        FRAGMENT_AFTER_CLOSE,
        CALLS,
        EVERY_DIALECT,
        "warning",
        "a fragment arrived for a call that was already closed",
        _SCAN,
        references=(issue("1jehuang/jcode", 1326),),
    ),
    QuirkInfo(
        OPENER_REPLAYED,
        CALLS,
        EVERY_DIALECT,
        "warning",
        "a call's opener (same id and name, no arguments) arrived again after its arguments",
        _SCAN,
        expected="Chat Completions sends a call's opening entry (its id and name) once; what "
        "follows at its index is argument text.",
        references=(pull("QwenLM/qwen-code", 6250), issue("QwenLM/qwen-code", 5107)),
    ),
    QuirkInfo(
        TRAILING_EMPTY_ARGUMENTS,
        CALLS,
        EVERY_DIALECT,
        "info",
        'a trailing "arguments": "" fragment after the arguments',
        _SCAN,
        references=(_ALIBABA,),
    ),
    QuirkInfo(
        ZERO_ARG_EMPTY_STRING,
        CALLS,
        EVERY_DIALECT,
        "warning",
        'a call whose arguments are only "" (zero-argument tool)',
        _SCAN,
        expected='Chat Completions: function.arguments is the JSON text of an object, "{}" for a '
        "tool without parameters.",
        references=(
            issue("vllm-project/vllm", 11392),
            issue("openai/openai-agents-js", 664),
            _NO_ARGS,
        ),
    ),
    QuirkInfo(
        ORPHAN_ID_ONLY_ENTRY,
        CALLS,
        EVERY_DIALECT,
        "warning",
        "an entry with an id but no name or arguments (left out)",
        _SCAN,
        expected="Chat Completions opens a call with an entry carrying its id and its function "
        "name: every call has a name.",
        references=("https://github.com/GCWing/BitFun",),
    ),
)
"""The family's codes, in report order among themselves."""
