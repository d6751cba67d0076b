"""The in-process event bus and the events the chain publishes after each commit.

No transport code lives here: the websocket servers and filters subscribe like anyone else.
"""
