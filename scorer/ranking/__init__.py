"""Rankings and significance tests over already computed scores (no files, Git or HTML).

One module per ranking or test, each with its formulas:

* :mod:`scorer.ranking.ranks`: per-batch BioASQ rankings (ties share the average rank,
  averaged component ranks, Task A's best k of n test sets, best system per team).
* :mod:`scorer.ranking.randomization`: the paired randomisation (sign-flip) test over
  questions, of a mean of per-question values or of a measure of per-question counts
  such as c@1, and the max-T step-down over all pairs of a batch.
* :mod:`scorer.ranking.holm`: Holm's step-down adjustment.
* :mod:`scorer.ranking.significance`: groups of systems of one batch that are not
  significantly different, from the tests above.
* :mod:`scorer.ranking.groups`: compact letters and tiers from pairwise decisions.
* :mod:`scorer.ranking.ranksets`: simultaneous rank sets of every system of a ranking,
  from the same pairwise decisions as the groups.
* :mod:`scorer.ranking.friedman`: across batches, the Friedman test.
* :mod:`scorer.ranking.nemenyi`: across batches, the Nemenyi critical difference.

The rules and formulas, with examples, are in ``docs/ranking.md``.
"""
from scorer.ranking.friedman import FriedmanResult, complete_rank_matrix, friedman_test
from scorer.ranking.groups import compact_letters, group_labels, tiers
from scorer.ranking.holm import holm_adjust
from scorer.ranking.nemenyi import nemenyi_critical_difference, nemenyi_groups
from scorer.ranking.randomization import (
    c_at_1_from_counts,
    count_statistic_p_values,
    paired_randomization_test,
    pairwise_p_values,
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
    count_statistic_groups,
    per_question_arrays,
    significance_groups,
)

__all__ = [
    "RankedSystem", "average_ranks", "rank_on_components", "phase_a_ranking",
    "phase_b_exact_ranking", "ideal_ranking", "task_a_ranking", "best_per_team",
    "paired_randomization_test", "pairwise_p_values", "count_statistic_p_values", "c_at_1_from_counts",
    "holm_adjust", "significance_groups", "SignificanceGroups", "per_question_arrays", "count_statistic_groups",
    "compact_letters", "group_labels", "tiers",
    "FriedmanResult", "friedman_test", "complete_rank_matrix", "nemenyi_critical_difference", "nemenyi_groups",
    "Component", "average_bounds", "surely_better", "rank_sets", "different_pairs",
]
