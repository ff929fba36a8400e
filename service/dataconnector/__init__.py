"""The Bridgemate Data Connector endpoint: a club's own scoring program (EBUScore, ScoreBridge ...) sets up the
evening and collects its results over the JSON-over-HTTP protocol its Data Connector client speaks
(docs/data-connector.md). Off unless the configuration's ``dataconnector`` gives a club id and a licence key.

``wire`` (the envelope), ``mapping`` (the protocol's objects to and from the event), ``queues`` (the five
outgoing queues, journalled), ``commands`` (one handler per command), ``server`` (its own port).
"""
