"""The Cosmos SDK gRPC face (port 9090): whatever query services the router holds (the modules' and the node's).

server.py runs grpcio as a Twisted service; router.py calls the servicers by method path (for gRPC, abci_query
and REST); abci.py answers CometBFT's abci_query; status.py maps domain errors to gRPC statuses.
"""
