"""``results/``: incremental, deterministic, atomic scoring of a challenge repository.

``score_all(root)`` is the entry point (``python -m scorer score-all``); the files it
writes are described in ``docs/results.md``.

* :mod:`scorer.store.files`: canonical JSON bytes, atomic writes, hashes;
* :mod:`scorer.store.runs`: finding, checking, validating and scoring one run;
* :mod:`scorer.store.tables`: batch tables (rankings, significance) and overviews;
* :mod:`scorer.store.pipeline`: the incremental pipeline and its :class:`Summary`.
"""
from scorer.store.pipeline import Summary, score_all

__all__ = ["score_all", "Summary"]
