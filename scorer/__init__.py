"""Scorer of a Git-native leaderboard for BioASQ-style challenges.

``scorer.evaluate(gold, run, task=..., edition=9, flavor="official")`` is the one entry
point; see ``docs/measures.md`` for every measure and both flavors.
"""
from scorer.errors import Problem, ScorerError
from scorer.evaluation import Result, evaluate

__version__ = "0.1.0"
__all__ = ["evaluate", "Result", "ScorerError", "Problem", "__version__"]
