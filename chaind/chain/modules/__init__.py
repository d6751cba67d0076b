"""The modules of the state machine, each owning its slice of state, its messages and events."""
