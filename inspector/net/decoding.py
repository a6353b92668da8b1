"""A body's Content-Encoding undone, with the decoders httpx itself uses (gzip, deflate, br,
zstd; unknown codings pass through). Shared by the recording proxy's relay
(:mod:`.proxy.body`) and its body worker (:mod:`.bodyworker`), which imports nothing of the
proxy package."""

from __future__ import annotations

import httpx

# The decoders httpx itself uses (the project pins httpx < 0.29): gzip, deflate, br, zstd.
from httpx._decoders import SUPPORTED_DECODERS, ContentDecoder, IdentityDecoder, MultiDecoder


def decoder_for(headers: httpx.Headers) -> ContentDecoder:
    """A decoder undoing ``headers``' Content-Encoding (unknown codings pass through)."""
    found = [
        SUPPORTED_DECODERS[value.strip().lower()]()
        for value in headers.get_list("content-encoding", split_commas=True)
        if value.strip().lower() in SUPPORTED_DECODERS
    ]
    if not found:
        return IdentityDecoder()
    return found[0] if len(found) == 1 else MultiDecoder(children=found)


def decoded(body: bytes, headers: httpx.Headers) -> bytes | None:
    """``body`` with its Content-Encoding undone, or None when it cannot be."""
    decoder = decoder_for(headers)
    try:
        return decoder.decode(body) + decoder.flush()
    except httpx.DecodingError:
        return None
