"""ArgGYM's twelve reasoning tasks over ASPIC+ theories (the paper's Appendix A): the six
analysis tasks and the six constructive ones, with what only they share (interventions,
the principle gadgets, symbols and templates of the prompts, the theories' scale).

Importing a task module registers its task; the shared framework (`argc.tasks.framework`,
answers, prompts, the theory builder, isolation) stays in `argc.tasks`, as the normative
and KG families do in `argc.tasks.norms` and `argc.tasks.kg`.
"""

from argc.tasks.arggym import (  # noqa: F401  (importing a task module registers it)
    attack,
    attack_defense,
    claim_chain,
    counter_argument,
    defeat_diagnosis,
    defence,
    formalization,
    perturbation,
    preference_construction,
    semantics_query,
    status_query,
)
