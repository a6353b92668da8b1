"""The ``langchain`` replica: langchain-openai's streamed ``AIMessageChunk`` s folded with ``+``
(:mod:`.merge`), each chunk's message (:mod:`.message`), langchain-core's merge rules
(:mod:`.dicts`) and its lenient ``parse_partial_json`` (:mod:`.partial_json`), over the openai
SDK's chunks (:mod:`inspector.core.clients.openai_sdk`).
"""
