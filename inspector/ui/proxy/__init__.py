"""Recording proxies in the window (Live ▸ Proxy…): the controller that runs them
(:mod:`.proxy`) and the dock that shows them (:mod:`.dock`).
"""
