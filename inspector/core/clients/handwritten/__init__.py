"""The hand-written tool loops ``by-id`` and ``by-index`` (:mod:`.loops`): what agents that
accumulate the openai SDK's chunks themselves hand over.
"""
