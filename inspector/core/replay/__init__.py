"""Driving an Analysis through a capture: step by step at recorded speed (:mod:`.replayer`),
or a slice at a time while a large file is still being read (:mod:`.loading`). Both end in the
state a live session would have reached on the same bytes. ``analyze`` feeds a large capture
as its records are read (:mod:`.readfeed`): ``Analysis.from_capture``'s state, or none.
"""
