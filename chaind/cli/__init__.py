"""The `chaind` command line: init, start, and (later) keys, query and tx."""
