"""The lanes: one column per tool call, filling as fragments arrive (:mod:`.lanes`), each a
:mod:`.lane` with its streaming parts (:mod:`.parts`) and its parsed arguments coloured
(:mod:`.highlight`).
"""
