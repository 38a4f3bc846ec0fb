"""ASP encodings of normative worlds (read as package data)."""
