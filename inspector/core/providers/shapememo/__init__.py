"""The shape memo the Chat Completions and Responses dialects keep: one JSON decode per chunk
only when a chunk differs from a proved one in more than its argument text.

Owns: the shapes and their proofs (:mod:`.shape`), a shape applied to a decoder's plain run at
once (:mod:`.runs`), and the dialect base that keeps a memo (:mod:`.dialect`). A dialect that
wants one subclasses :class:`~.dialect.MemoDialect` and offers its one-call events to it.
"""
