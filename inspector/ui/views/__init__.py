"""The document's views together (lanes, panes, timeline, clients), kept in step with the
document and with each other (:mod:`.views`).
"""
