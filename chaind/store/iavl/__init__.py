"""IAVL trees as cosmos/iavl v1 hashes them: one per native module store, versioned by block height.

node.py: nodes, their hashes and records; tree.py: the mutable tree and reads at a version; proofs.py: ICS-23.
"""
