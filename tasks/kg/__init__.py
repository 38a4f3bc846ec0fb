"""Generated KG worlds over the depth-by-complexity grid: name pools per split, the graph
generator with the complexity presets, the English renderer and the split plans
(docs/kg.md, "Generated graphs")."""
