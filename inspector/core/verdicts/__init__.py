"""Stage 4a, calls -> verdicts: is each assembled call fit to execute, and what went wrong.

Owns tool definitions and their JSON Schemas (:mod:`.tools`, :mod:`.schemas`: what a call is
judged against), the validation modes (:mod:`.validation`), the per-call judgement under the
user's settings (:mod:`.judge`) and the attempt reasons and retry rule (:mod:`.attempts`). The
provider quirks are a stage of their own beside this one (:mod:`inspector.core.quirks`).
"""
