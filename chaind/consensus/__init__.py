"""Block production: the solo proof-of-stake producer and the mempool it draws from."""
