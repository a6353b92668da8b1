"""The bottom layer: the vocabulary every stage shares, and nothing else.

Owns the wire and delta types (:mod:`.model`: ``SSEEvent``, ``Delta``, ``ToolCallDelta``, the
``OMITTED`` marker that keeps "absent" apart from ``None`` and ``""``) and the one exception
type users see (:mod:`.errors`). It imports no other part of the core, so every stage may
import it.
"""
