"""The Clients view: what each client replica would hand the agent (:mod:`.clients`), and when
the replicas run for the window and where their verdict shows (:mod:`.follow`).
"""
