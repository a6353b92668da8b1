"""The OpenAI-compatible Chat Completions dialect, whole (``openai-chat``).

Owns: ``choices[].delta`` chunks -> deltas (:mod:`.dialect`, odd fields the careful way in
:mod:`.fields`), how its streams and request URLs are recognised (:mod:`.recognition`), its
tool-definition shape (:mod:`.tools`), and the provider itself: closing rule, checks, end
marker, requests, continuations, error bodies, key header (:mod:`.provider`).
"""

from inspector.core.providers.openai_chat.provider import PROVIDER

__all__ = ["PROVIDER"]
