"""The Gemini dialect, whole (``gemini``).

Owns: ``GenerateContentResponse`` events -> deltas (:mod:`.dialect`, Vertex's streamed
``partialArgs`` in :mod:`.partial`), how its streams and request URLs are recognised
(:mod:`.recognition`), its tool-definition shape and OpenAPI schemas (:mod:`.tools`,
:mod:`.schema`), and the provider itself: closing rule, requests, continuations, error bodies,
key header (:mod:`.provider`).
"""

from inspector.core.providers.gemini.provider import PROVIDER

__all__ = ["PROVIDER"]
