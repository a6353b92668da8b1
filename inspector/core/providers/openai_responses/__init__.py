"""The OpenAI Responses dialect, whole (``openai-responses``).

Owns: ``response.*`` events -> deltas (:mod:`.dialect`), how its streams and request URLs are
recognised (:mod:`.recognition`), its tool-definition shape (:mod:`.tools`), and the provider
itself: closing rule, checks, end marker, requests, continuations, error bodies, key header
(:mod:`.provider`).
"""

from inspector.core.providers.openai_responses.provider import PROVIDER

__all__ = ["PROVIDER"]
