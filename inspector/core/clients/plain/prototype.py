"""The AI SDK's ``secure-json-parse`` refusal, as every plain reader applies it to the bytes it
reads: an event holding a ``__proto__`` key, or a ``constructor`` key (each character possibly
escaped), anywhere, is an error part the other libraries never see, so a body where either may
be is not plain, whatever the dialect.

Invariant: :data:`PROTOTYPE` matches exactly where one of
:data:`~inspector.core.clients.vercel_ai.common.PROTOTYPE_KEYS` matches (their alternation,
over bytes): a reader that searches every byte of its body that may hold a key refuses what a
search of the whole body would.
"""

from __future__ import annotations

import re
from typing import Final

from inspector.core.clients.vercel_ai.common import PROTOTYPE_KEYS

PROTOTYPE: Final = re.compile(b"|".join(b"(?:%s)" % p.pattern.encode() for p in PROTOTYPE_KEYS))
"""Either key, quoted and followed by a colon (one C pass for both)."""
