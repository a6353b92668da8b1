"""The open document: the source on show and the settings it is judged under
(:mod:`.document`), its clock and replay (:mod:`.player`), the toolbar that sets both
(:mod:`.toolbar`), and what a window feature may ask of the window that shows it
(:mod:`.host`).
"""
