"""Reducing a capture to a minimal one that still shows one property (``reduce --keep``).

The property (:mod:`.keep`: a quirk code, an invalid call, a client library that breaks, a
difference between two settings) is judged by the same Analysis, replicas and settings as
``analyze``, on the candidate *as written* (:mod:`.write` serialises it, the reader reads it
back), so the reduced capture provably still shows it. The search is delta debugging
(:mod:`.ddmin`) over an attempt's wire events (:mod:`.units`), then over the request's tools;
:mod:`.reducer` drives it. It sits at the top of the core, beside the matrix: it reads
``reports`` (the clients' words) and nothing imports it but the command line, the API and the
window.
"""
