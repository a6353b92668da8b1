"""Stage 4, calls -> verdicts: is each assembled call fit to execute, and what went wrong.

Owns tool definitions and their JSON Schemas (:mod:`.tools`, :mod:`.schemas`: what a call is
judged against), the validation modes (:mod:`.validation`), the per-call judgement under the
user's settings (:mod:`.judge`), the attempt reasons and retry rule (:mod:`.attempts`) and the
provider quirks (:mod:`.quirks`, with its wire half :mod:`.quirkscan`, its call half
:mod:`.callscan` and their shared vocabulary :mod:`.seen`).
"""
