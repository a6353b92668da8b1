"""Opening a large file progressively: its bytes read on a worker thread and fed a slice at a
time (:mod:`.progressive`), and its progress and Cancel in the status bar (:mod:`.loadbar`).
"""
