"""The open document: the source on show and the settings it is judged under
(:mod:`.document`), its clock and replay (:mod:`.player`) and the toolbar that sets both
(:mod:`.toolbar`).
"""
