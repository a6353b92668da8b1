"""The ``openai-python`` replica: the SDK's own stream helpers, Chat Completions
(``ChatCompletionStreamState``: :mod:`.replica`, its ``accumulate_delta`` in :mod:`.deltas`,
what it shows while the stream arrives in :mod:`.mirror`) and Responses (:mod:`.responses`),
over the SDK's chunks (:mod:`inspector.core.clients.openai_sdk`).
"""
