"""Scorer of a Git-native leaderboard for BioASQ-style challenges.

``scorer.evaluate(gold, run, task=..., edition=9, flavor="official")`` is the one entry
point; see ``docs/measures.md`` for every measure and both flavors.
"""
from scorer.core.errors import Problem, ScorerError
from scorer.evaluation import Result, evaluate
from scorer.fingerprint import version

#: The installed distribution's version (``importlib.metadata``), a label only: what
#: decides whether a result is reused is :func:`scorer.fingerprint.fingerprint`.
__version__ = version()
__all__ = ["evaluate", "Result", "ScorerError", "Problem", "__version__"]
