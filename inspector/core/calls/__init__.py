"""Stage 3, deltas -> calls: the index-keyed accumulator under the empty-id policies, the
calls written in the assistant text (:mod:`.textcalls`, read from the text deltas), the
incremental JSON progress of each call's buffer, and the per-fragment rows views show.

:mod:`.stream` drives one response body through stages 1-3 (bytes -> events -> deltas ->
calls); the provider that turns events into deltas (stage 2) is passed in, never imported.
"""
