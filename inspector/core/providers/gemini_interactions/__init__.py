"""The Gemini Interactions dialect, whole (``gemini-interactions``, ``POST …/interactions``).

Owns: ``interaction.*`` / ``step.*`` (and the earlier ``content.*``) events -> deltas
(:mod:`.dialect`; the step types in :mod:`.steps`), how its streams and request URLs are
recognised (:mod:`.recognition`), its tool-definition shape (:mod:`.tools`), and the provider:
closing rule, end marker, requests, continuations, error bodies and key header
(:mod:`.provider`).
"""

from inspector.core.providers.gemini_interactions.provider import PROVIDER

__all__ = ["PROVIDER"]
