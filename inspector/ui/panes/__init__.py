"""The panes beside and under the lanes: raw wire, problems and quirks, the turn, and the
attempts tree (:mod:`.panes`).
"""
