"""How a legacy completions stream and request are recognised.

Proof: a chunk whose ``object`` is ``text_completion`` (only this API sends it; every server
imitating ``/v1/completions`` — vLLM, llama.cpp, TGI — sends the same word for the same
dialect); a request to ``…/completions`` that is not ``…/chat/completions``. A chunk with
``choices`` whose entries carry ``text`` and no ``delta`` is only likely.
"""

from __future__ import annotations

from typing import Final

from inspector.core.base.provider import LIKELY, NO, PROVES, Head, Recognition
from inspector.core.providers.wire.recognition import objects, url_path

OBJECT: Final = "text_completion"
"""The ``object`` of a legacy completions chunk."""


def recognises(head: Head, content_type: str | None, url: str | None) -> Recognition:
    """See the module docstring."""
    if url is not None:
        path = url_path(url)
        if path.endswith("/completions") and not path.endswith("/chat/completions"):
            return PROVES
    found = NO
    for _ev, obj in objects(head):
        if obj is None:
            continue
        if obj.get("object") == OBJECT:
            return PROVES
        choices = obj.get("choices")
        if type(choices) is list and choices and type(choices[0]) is dict:
            first = choices[0]
            if "text" in first and "delta" not in first and "message" not in first:
                found = LIKELY
    return found
