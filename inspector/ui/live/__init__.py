"""Live sessions in the window: the controller that runs them (:mod:`.live`), the Live toolbar
that sets them up (:mod:`.bar`, its widgets in :mod:`.widgets`) and the scenario editor
(:mod:`.scenario`).
"""
