"""The explorer face (8547): a single-page app in static/ that reads the chain through the node's public faces
(JSON-RPC and its WebSocket, CometBFT RPC, REST), and the config.json telling it where they are."""
