"""Serving the capture on show as a provider (File ▸ Serve this capture…): the controller
that runs the server and the panel that shows its base URL (:mod:`.serve`).
"""
