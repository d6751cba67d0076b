"""Storage: LevelDB (plyvel) holding blocks, results, indexes and state by height.

Every block is written in one atomic write batch; readers see committed heights only.
"""
