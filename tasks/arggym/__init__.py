"""ArgGYM's twelve reasoning tasks over ASPIC+ theories (the paper's Appendix A): the six
analysis tasks and the six constructive ones, with what only they share (interventions,
the principle gadgets, symbols and templates of the prompts, the theories' scale).

Importing a task module registers its task (`argc.tasks.REGISTRY` imports it when the task is
first looked up); the shared framework (`argc.tasks.framework`, answers, prompts, the theory
builder, isolation) stays in `argc.tasks`, as the normative and KG families do in
`argc.tasks.norms` and `argc.tasks.kg`.
"""
