"""The consensus-engine RPC on 26657 as CometBFT v0.38 serves it: routes, tx_search, /websocket.

One module per idea: query language, search, encoding, params, routes, server, websocket.
"""
