"""The ``events`` family: what the events and the deltas that carry no call fragment show
(keep-alives, errors in a 200 stream, undecodable or joined events, fields of the wrong type,
finish reasons, tool-call tags in the text).
"""
