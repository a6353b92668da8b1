"""The ``vercel-ai`` replica: ``streamText`` over ``@ai-sdk/openai-compatible`` (:mod:`.replica`),
its streaming tool-call tracker (:mod:`.tracker`), the zod schema every chunk is checked against
(:mod:`.zod_chunk`) and JavaScript's ``JSON.parse`` / ``JSON.stringify`` as V8 runs them
(:mod:`.v8_json`).
"""
