"""The Amazon Bedrock dialect, whole (``bedrock-converse``).

Owns: AWS event-stream framing and the JSON-lines form (:mod:`.eventstream`), ConverseStream
events and InvokeModelWithResponseStream chunks -> deltas (:mod:`.dialect`; a chunk's
Anthropic event is read by the anthropic provider's dialect), how its streams and request URLs
are recognised (:mod:`.recognition`), its tool-definition shape (:mod:`.tools`), and the
provider itself: closing rule, checks, requests, continuations, error bodies, key header
(:mod:`.provider`).
"""

from inspector.core.providers.bedrock_converse.provider import PROVIDER

__all__ = ["PROVIDER"]
