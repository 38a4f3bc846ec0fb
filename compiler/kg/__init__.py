"""KG worlds on clingo: a world as ASP facts, object states with inertia and kinship
composition by the encodings in asp/kg, read back as a typed model."""
