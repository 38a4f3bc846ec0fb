"""The wall-clock bound of the quick tests' "a limit stops it promptly" checks.

Quick tests run on loaded machines, where a process can stall for seconds; what they check
is that a limit holds at all, which a count or an error message shows, while a limit that
fails runs on for minutes or hangs. So time is only ever bounded with this wide margin."""

#: Seconds allowed beyond a limit (or beyond nothing, for "at once").
GRACE = 10.0
