"""ABCI 2.0 over a socket (CometBFT v0.38): framing, the connection protocol and the app's answers.

With `[abci] mode = "socket"` a CometBFT node drives the chain through this package instead of the solo producer.
"""
