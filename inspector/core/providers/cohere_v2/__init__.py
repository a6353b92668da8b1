"""The Cohere v2 chat dialect, whole (``cohere-v2``).

Owns: ``message-*`` / ``content-*`` / ``tool-plan-delta`` / ``tool-call-*`` / ``citation-*``
events -> deltas (:mod:`.dialect`), how its streams and request URLs are recognised
(:mod:`.recognition`), its tool-definition shape (:mod:`.tools`), and the provider itself:
closing rule, checks, end marker, requests (``/v2/chat``), continuations, error bodies and key
header (:mod:`.provider`).
"""

from inspector.core.providers.cohere_v2.provider import PROVIDER

__all__ = ["PROVIDER"]
