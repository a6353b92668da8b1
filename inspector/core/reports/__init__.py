"""The outputs: the analyzer's JSON document and table (:mod:`.report`) and one stream judged
under two settings side by side (:mod:`.compare`). The top of the core: nothing in it imports
these.
"""
