"""The ``litellm`` replica: LiteLLM's ``stream_chunk_builder`` over its streaming wrapper
(:mod:`.builder`), its ``Delta`` models and their checks (:mod:`.delta`) and its exception
mapping (:mod:`.errors`), over the openai SDK's chunks (:mod:`inspector.core.clients.openai_sdk`).
"""
