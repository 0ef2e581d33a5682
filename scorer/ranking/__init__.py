"""Rankings and significance tests over already computed scores (no files, Git or HTML).

* :mod:`scorer.ranking.ranks`: per-batch BioASQ rankings (ties share the average rank,
  averaged component ranks, Task A's best k of n test sets, best system per team).
* :mod:`scorer.ranking.significance`: paired randomisation tests over questions (of a
  mean of per-question values, or of a measure of per-question counts such as c@1), the
  max-T step-down over all pairs of a batch, and groups (letters or tiers) of systems
  that are not significantly different.
* :mod:`scorer.ranking.ranksets`: simultaneous rank sets of every system of a ranking,
  from the same pairwise decisions as the groups.
* :mod:`scorer.ranking.friedman`: across batches, the Friedman test and the Nemenyi
  critical difference.

The rules and formulas, with examples, are in ``docs/ranking.md``.
"""
from scorer.ranking.friedman import (
    FriedmanResult,
    complete_rank_matrix,
    friedman_test,
    nemenyi_critical_difference,
    nemenyi_groups,
)
from scorer.ranking.ranks import (
    RankedSystem,
    average_ranks,
    best_per_team,
    ideal_ranking,
    phase_a_ranking,
    phase_b_exact_ranking,
    rank_on_components,
    task_a_ranking,
)
from scorer.ranking.ranksets import Component, average_bounds, different_pairs, rank_sets, surely_better
from scorer.ranking.significance import (
    SignificanceGroups,
    c_at_1_from_counts,
    compact_letters,
    count_statistic_groups,
    count_statistic_p_values,
    group_labels,
    paired_randomization_test,
    pairwise_p_values,
    per_question_arrays,
    significance_groups,
    simulate_error_and_power,
    tiers,
)

__all__ = [
    "RankedSystem", "average_ranks", "rank_on_components", "phase_a_ranking",
    "phase_b_exact_ranking", "ideal_ranking", "task_a_ranking", "best_per_team",
    "paired_randomization_test", "pairwise_p_values", "significance_groups",
    "SignificanceGroups", "compact_letters", "per_question_arrays", "count_statistic_p_values",
    "count_statistic_groups", "c_at_1_from_counts", "group_labels", "tiers", "simulate_error_and_power",
    "FriedmanResult", "friedman_test", "nemenyi_critical_difference", "nemenyi_groups",
    "complete_rank_matrix", "Component", "average_bounds", "surely_better", "rank_sets", "different_pairs",
]
