"""Answer Set Programming encodings, one concern per `.lp` file (package data)."""
