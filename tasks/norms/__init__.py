"""Generated normative worlds: domain vocabularies, root-level metamorphic families with
their splits, surface variation, natural-language rendering and the datasets built from
them (docs/norms.md, "Generated worlds")."""
