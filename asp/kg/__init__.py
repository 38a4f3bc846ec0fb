"""ASP encodings of KG worlds (read as package data)."""
