"""Normative worlds on the engine: grounding, the ASPIC+ theory of a world, its verdict on
the queried action, and change records between paired worlds."""
