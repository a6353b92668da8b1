"""The Anthropic Messages dialect, whole (``anthropic``).

Owns: ``message_*`` / ``content_block_*`` events -> deltas (:mod:`.dialect`), how its streams
and request URLs are recognised (:mod:`.recognition`), its tool-definition shape
(:mod:`.tools`), and the provider itself: closing rule, checks, end marker, requests,
continuations, error bodies, key header and API version (:mod:`.provider`).
"""

from inspector.core.providers.anthropic.provider import PROVIDER

__all__ = ["PROVIDER"]
