"""pydantic as client libraries run it on streamed data: the lax checks of the few field types
they validate and ``ValidationError``'s wording (:mod:`.words`), shared by the replicas whose
library raises one (LiteLLM, LangChain). The library itself is never imported.
"""
