"""The state machine, ABCI-shaped: check_tx, finalize_block, commit, query.

It never imports a transport: services read it through views; one writer thread drives it.
"""
