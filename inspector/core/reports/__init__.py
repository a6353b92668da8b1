"""The outputs: the analyzer's JSON document and table (:mod:`.report`), one stream judged
under two settings side by side (:mod:`.compare`), the one vocabulary every view and report
speaks (:mod:`.words`), analyze's one exit-code table (:mod:`.exitcodes`) and what a file is
before it is judged (:mod:`.gate`: a stream or not, its header's dialect); what the client
replicas say, in those words (:mod:`.clients`), the session's verdict in one line for every view
(:mod:`.headline`), and the clients in analyze's outputs and its ``--client`` gate
(:mod:`.clientreport`). The top of the core: nothing in it imports these.
"""
