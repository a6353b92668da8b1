"""The registry's entries of the ``lanes`` family: what tool-call fragments show per wire lane,
as they arrive (:mod:`inspector.core.quirks.lanes`)."""

from __future__ import annotations

from typing import Final

from inspector.core.quirks.codes import (
    ARGUMENTS_BEFORE_IDENTITY,
    ARGUMENTS_NOT_STRING,
    DONE_IDENTITY_MISMATCH,
    DUPLICATE_CALL_ID,
    DUPLICATE_INDEX_IN_CHUNK,
    EMPTY_STRING_CONTINUATION_ID,
    EMPTY_STRING_CONTINUATION_NAME,
    ID_REPEATED_EVERY_CHUNK,
    INDEX_REUSED_WITH_NEW_ID,
    MISSING_CALL_ID,
    MISSING_INDEX,
    NAME_REPEATED_EVERY_CHUNK,
    NULL_ID,
    NULL_STRING_ID,
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

LANES: Final[Family] = "lanes"
_SCAN = ("lanes.scan",)
_TRACK = ("lanes.track",)
_ALIBABA = blob("vercel/ai", "packages/alibaba/src/__fixtures__/alibaba-tool-call.chunks.txt")
_HERMES_5384 = pull("NousResearch/hermes-agent", 5384)
_MISTRAL = "packages/mistral/src/__fixtures__/"
_MISTRAL_INCREMENTAL = blob("vercel/ai", _MISTRAL + "mistral-incremental-tool-call.chunks.txt")
_MISTRAL_WHOLE = blob("vercel/ai", _MISTRAL + "mistral-tool-call.chunks.txt")

ENTRIES: Final = (
    QuirkInfo(
        EMPTY_STRING_CONTINUATION_ID,
        LANES,
        EVERY_DIALECT,
        "warning",
        'continuation fragments carry "id": "" (an accumulator that looks it up literally drops '
        "them)",
        _SCAN,
        expected="Chat Completions sends a call's id in its first tool_calls entry only: the "
        "entries that continue the call at its index omit id.",
        references=(
            _ALIBABA,
            issue("t8y2/dbx", 2196),
            pull("symfony/ai", 2220),
            pull("spring-projects/spring-ai", 6369),
        ),
    ),
    QuirkInfo(
        EMPTY_STRING_CONTINUATION_NAME,
        LANES,
        EVERY_DIALECT,
        "warning",
        'continuation fragments carry "name": ""',
        _SCAN,
        expected="Chat Completions sends function.name in a call's first tool_calls entry only: "
        "the entries that continue the call omit it.",
        references=(
            _MISTRAL_INCREMENTAL,
            issue("A3S-Lab/Code", 139),
            issue("tontinton/maki", 785),
            pull("mcowger/plexus", 766),
        ),
    ),
    QuirkInfo(
        NULL_STRING_ID,
        LANES,
        EVERY_DIALECT,
        "warning",
        'an id is the string "null"',
        _SCAN,
        expected="A continuation omits id; an id that is sent is the call's own, the string its "
        'tool result echoes, never the text "null".',
        references=(
            pull("langchain-ai/langchainjs", 11505),
            pull("langchain-ai/langchainjs", 11373),
        ),
    ),
    QuirkInfo(
        NULL_ID,
        LANES,
        EVERY_DIALECT,
        "warning",
        "an id is JSON null",
        _SCAN,
        expected="Chat Completions: a tool_calls entry's id is an optional string; a continuation "
        "omits the key rather than sending null.",
    ),
    QuirkInfo(
        MISSING_CALL_ID,
        LANES,
        PROVIDER_DEPENDENT,
        "warning",
        "a named call arrived without any id (the inspector repairs one)",
        _TRACK,
        expected="Every call carries an id in its first entry (Chat Completions id, Anthropic "
        "tool_use id, Responses call_id): the tool result names the call it answers by it.",
        references=(pull("farion1231/cc-switch", 5093),),
    ),
    QuirkInfo(
        MISSING_INDEX,
        LANES,
        PROVIDER_DEPENDENT,
        "warning",
        "tool-call entries carry no index",
        _SCAN,
        expected="Chat Completions: every tool_calls entry carries index, the call's position in "
        "the turn, and the entries that continue a call repeat it.",
        references=(
            issue("ollama/ollama", 7881),
            issue("openai/openai-python", 2806),
            issue("AstrBotDevs/AstrBot", 6661),
            _MISTRAL_WHOLE,
        ),
    ),
    QuirkInfo(
        INDEX_REUSED_WITH_NEW_ID,
        LANES,
        EVERY_DIALECT,
        "warning",
        "a new call (new id and name) reuses an index already in use",
        _SCAN,
        expected="Chat Completions gives each call of a turn its own index (0, 1, 2 …): every "
        "entry at an index belongs to that one call.",
        references=(
            issue("ollama/ollama", 15457),
            pull("ai-dynamo/dynamo", 4723),
            pull("langchain-ai/langchain", 35281),
            issue("BerriAI/litellm", 7621),
            pull("vercel/ai", 14277),
        ),
    ),
    QuirkInfo(
        DUPLICATE_CALL_ID,
        LANES,
        EVERY_DIALECT,
        "warning",
        "two calls carry the same id",
        _SCAN,
        expected="Every call of a turn has an id of its own: each tool result names, by it, the "
        "one call it answers.",
        references=(
            issue("can1357/oh-my-pi", 2055),
            pull("HKUDS/nanobot", 3943),
            issue("QuantumNous/new-api", 6278),
            issue("QwenLM/qwen-code", 8382),
        ),
    ),
    QuirkInfo(
        DUPLICATE_INDEX_IN_CHUNK,
        LANES,
        PROVIDER_DEPENDENT,
        "warning",
        "one chunk carries two entries with the same index",
        _SCAN,
        expected="",
        references=(issue("openai/openai-python", 3203),),
    ),
    QuirkInfo(
        ID_REPEATED_EVERY_CHUNK,
        LANES,
        EVERY_DIALECT,
        "warning",
        "continuations repeat the call's full id",
        _TRACK,
        expected="Chat Completions sends a call's id once, in its first tool_calls entry: the "
        "entries that continue it omit id.",
        references=(
            issue("SillyTavern/SillyTavern", 5948),
            issue("langchain4j/langchain4j", 4544),
            issue("spring-projects/spring-ai", 5973),
            _HERMES_5384,
        ),
    ),
    QuirkInfo(
        NAME_REPEATED_EVERY_CHUNK,
        LANES,
        EVERY_DIALECT,
        "warning",
        "continuations repeat the call's full name",
        _TRACK,
        expected="Chat Completions sends function.name once, in a call's first tool_calls entry: "
        "the entries that continue it carry only arguments.",
        references=(
            issue("NousResearch/hermes-agent", 8259),
            pull("NousResearch/hermes-agent", 8094),
            pull("AstrBotDevs/AstrBot", 7765),
            _HERMES_5384,
        ),
    ),
    QuirkInfo(
        ARGUMENTS_BEFORE_IDENTITY,
        LANES,
        EVERY_DIALECT,
        "warning",
        "argument fragments arrived at an index before the call's id and name",
        _SCAN,
        expected="Chat Completions opens a call with an entry carrying its id and name (arguments "
        '"" or their first piece); the argument pieces follow it.',
        references=(issue("Zoo-Code-Org/Zoo-Code", 695), issue("Zoo-Code-Org/Zoo-Code", 218)),
    ),
    QuirkInfo(
        ARGUMENTS_NOT_STRING,
        LANES,
        PROVIDER_DEPENDENT,
        "warning",
        "arguments arrived as a JSON object, not a string",
        _SCAN,
        expected="Chat Completions: function.arguments is a string of JSON text; Anthropic starts "
        "a tool_use block with input {} and streams the input as partial_json strings.",
        references=(
            issue("ggml-org/llama.cpp", 20198),
            issue("deepset-ai/haystack-core-integrations", 3321),
        ),
    ),
    QuirkInfo(
        DONE_IDENTITY_MISMATCH,
        LANES,
        EVERY_DIALECT,
        "warning",
        "the done event restates another id or name than the call opened with",
        _SCAN,
        expected="Responses: function_call_arguments.done and output_item.done restate the "
        "call_id and name the item was added with.",
        references=(issue("farion1231/cc-switch", 4671), pull("SaladDay/cc-switch-cli", 341)),
    ),
)
"""The family's codes, in report order among themselves."""
