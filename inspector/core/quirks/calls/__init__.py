"""The ``calls`` family: what one assembled call's fragments show (how its arguments were
streamed, replayed, restated in done events) and what the accumulator concluded about it
under the policy in force (changes of identity, late fragments, orphans), kept per call and
folded once the call can no longer change.
"""
