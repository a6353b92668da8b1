"""What a credential looks like, whatever it is called: the documented key prefixes.

Used by the one redaction rule (:mod:`inspector.core.capture.redaction`) on headers, URLs, the
request body's credential fields, error texts and printed lines — never on response bodies,
tool definitions or tool-call arguments (there a value is masked only when it is the
session's own key).

Invariants:
- A shape is a documented prefix followed by a run of key characters long enough that an
  ordinary word never matches (``sk-learn`` does not; ``sk-`` then 16 or more characters
  with a digit among them does). The run ends at the first character a key never holds, so a
  key followed by ``.``, a quote, a newline or the end of the text is found all the same.
- A shape starts at a word's start: ``task-…`` never yields ``sk-…``. A word may start
  right after a backslash escape as text shows it (``\\nsk-…`` is a newline, then a key).
"""

from __future__ import annotations

import re
from typing import Final

_START: Final = r"(?:(?<![A-Za-z0-9_\-])|(?<=\\[nrtbf0]))"
"""A key starts a word: after no key character, or after an escape as a repr shows it."""
_END: Final = r"(?![A-Za-z0-9_\-])"

SHAPES: Final[dict[str, str]] = {
    "Anthropic": r"sk-ant-[A-Za-z0-9_\-]{16,}",
    "OpenAI project": r"sk-proj-[A-Za-z0-9_\-]{16,}",
    "OpenAI, DeepSeek, LiteLLM and others (sk-)": r"sk-(?=[A-Za-z0-9_\-]*[0-9])[A-Za-z0-9_\-]{16,}",
    "Stripe-style live/test key": r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
    "Google API key": r"AIza[0-9A-Za-z_\-]{30,}",
    "AWS access key id": r"(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}",
    "xAI": r"xai-[A-Za-z0-9]{20,}",
    "Groq": r"gsk_[A-Za-z0-9]{20,}",
    "Hugging Face": r"hf_[A-Za-z0-9]{20,}",
    "Replicate": r"r8_[A-Za-z0-9]{20,}",
    "Perplexity": r"pplx-[A-Za-z0-9]{20,}",
    "GitHub token": r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})",
    "GitLab token": r"glpat-[A-Za-z0-9_\-]{20,}",
    "Slack token": r"xox[abposre]-[A-Za-z0-9\-]{10,}",
    "JSON Web Token": r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*",
    "Google OAuth access token": r"ya29\.[A-Za-z0-9_\-]{20,}",
}
"""The documented prefixes of the major providers' and clouds' keys, by whose they are."""

SHAPE: Final = re.compile(_START + "(?:" + "|".join(SHAPES.values()) + ")" + _END)
"""Any one of :data:`SHAPES`, as a whole word (see the module doc)."""

_HINTS: Final = (
    "sk-", "sk_", "rk_", "pk_", "AIza", "AKIA", "ASIA", "AGPA", "AIDA", "AROA", "xai-", "gsk_",
    "hf_", "r8_", "pplx-", "gh", "github_pat_", "glpat-", "xox", "eyJ", "ya29.",
)  # fmt: skip
"""Substrings one of which every shape holds: text without any is not scanned (fast path)."""
_HINT: Final = re.compile("|".join(map(re.escape, _HINTS)))
"""Any one of :data:`_HINTS`: one scan in C (a Python loop of ``in`` tests cost ~20 steps a
text, on every header of every entry of a HAR)."""


def might_hold_shape(text: str) -> bool:
    """A cheap test: False means :data:`SHAPE` cannot match ``text``."""
    return _HINT.search(text) is not None


def holds_shape(text: str) -> bool:
    """Does ``text`` hold a credential-shaped word?"""
    return might_hold_shape(text) and SHAPE.search(text) is not None


def mask_shapes(text: str, mask: str) -> str:
    """``text`` with every credential-shaped word replaced by ``mask``."""
    return SHAPE.sub(mask, text) if might_hold_shape(text) else text
