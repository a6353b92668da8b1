"""Compare: one stream judged under two settings side by side (:mod:`.compare`)."""
