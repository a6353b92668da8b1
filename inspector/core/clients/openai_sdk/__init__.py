"""The openai SDK's own reading of a body, shared by every replica built on its chunks
(openai-python, LiteLLM, LangChain, the hand-written loops): its SSE decoding, worked out once
per exchange (:mod:`.wire`), and the chunks and errors it yields from it (:mod:`.sse`). No
accumulator lives here: each library's is in its own package.
"""
