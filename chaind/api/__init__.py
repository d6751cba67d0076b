"""Services behind the faces: eth, net, web3, txpool method tables (no transport code)."""
