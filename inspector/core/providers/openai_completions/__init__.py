"""The OpenAI legacy completions dialect, whole (``openai-completions``, ``/v1/completions``).

Owns: ``text_completion`` chunks -> text deltas (:mod:`.dialect`), how its streams and request
URLs are recognised (:mod:`.recognition`), and the provider (:mod:`.provider`). The API has no
tools: a stream of it is text only, and the provider says so (``tool_calls = False``) so a
report says "this dialect has no tool calls" instead of judging an absence.
"""

from inspector.core.providers.openai_completions.provider import PROVIDER

__all__ = ["PROVIDER"]
