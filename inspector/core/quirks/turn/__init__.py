"""The ``turn`` family: what only the turn as a whole shows, once its finish or its end is
known (a finish that does not match the calls, a cut the finish hides, a missing finish or
end marker, gaps in the wire indexes, calls written in the text).
"""
