"""The Cosmos SDK gRPC face (port 9090): bank, auth, tendermint and node query services.

server.py runs grpcio as a Twisted service; one module per service; common.py holds heights, errors and pagination.
"""
