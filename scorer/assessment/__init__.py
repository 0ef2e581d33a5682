"""Expert assessment of a closed batch, as BioASQ runs it (``docs/assessment.md``).

Results computed on the experts' gold right after a window closes are *preliminary*; the
experts then judge what the systems returned beyond the gold, the gold is enriched with
what they accept, and the *final* results follow.

* :mod:`scorer.assessment.pool`: the blind pool of a batch and phase (``scorer pool``);
* :mod:`scorer.assessment.judgements`: an assessor's judgements file, saved atomically;
* :mod:`scorer.assessment.merge`: judgements -> the next gold version and expert scores,
  with the agreement between assessors (``scorer assess merge``);
* :mod:`scorer.assessment.server`: the local judging page (``scorer assess``).
"""
