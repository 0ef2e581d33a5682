"""The ground floor of the scorer: what every layer may import, and which imports nothing
of the scorer itself (``docs/architecture.md``).

* :mod:`scorer.core.errors`: located problems and :class:`~scorer.core.errors.ScorerError`;
* :mod:`scorer.core.tasks`: the task registry (plain data);
* :mod:`scorer.core.challenge`, :mod:`scorer.core.limits`: the records of a challenge (its
  rules, limits, batches and windows, teams), which :mod:`scorer.formats.challenge` reads;
* :mod:`scorer.core.paths`: the repository layout (a run's identity from its path under
  ``submissions/``, sealed and preliminary copies);
* :mod:`scorer.core.utc`: times as the files write them;
* :mod:`scorer.core.digest`: the one SHA-256 of bytes.
"""
