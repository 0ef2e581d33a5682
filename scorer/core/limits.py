"""The ``[limits]`` of ``challenge.toml``: how many systems a team registers, how large a
run may be, and the per-question caps of a run (how long each list of one question, or
Task A document, may be; :mod:`scorer.formats.limits` checks a run against them).

Runs only; gold files are never capped.  The defaults are BioASQ's rules, and the
official evaluator's quirks are defined on lists of such lengths (a run of 30,000
snippets in one question sends its snippet merge into hours of work):

* Phase A: "the participating systems are required to return at most 10 relevant
  documents and snippets" (BioASQ Task 13b guidelines, participants-area.bioasq.org,
  general_information/Task13b); the BioASQ FAQ (Task 8b) calls 10 "the maximum number of
  elements per question in participant submissions", which the MAP of documents,
  concepts, snippets and triples divides by: 10 for concepts and triples too.
* Phase B: a factoid answer is "up to 5 entity names" (Tsatsaronis et al., An overview of
  the BIOASQ large-scale biomedical semantic indexing and question answering competition,
  BMC Bioinformatics 16:138, 2015, Table 14); a list answer is a list of entity names,
  at most 100 here (the guidelines' figure as we know it; not confirmed in the pages we
  could read, so organizers may set ``list_answers``); synonyms per entity: since
  BioASQ 5 "no synonyms should be submitted" (Task 13b guidelines), one name is scored,
  10 are accepted for older editions' runs.  Documents, snippets, concepts and triples
  of a Phase B run are copied from the test set and not scored: not capped.
* Task A: BioASQ sets no number of MeSH labels per article; 100 is far above any real
  indexing (a MEDLINE citation has about 13) and keeps the hierarchical measures cheap.
* mcqa: a run holds one answer per question; nothing to cap.

Organizers change them in ``[limits]`` of ``challenge.toml`` (docs/challenge.md).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QuestionLimits:
    """The caps; field names are the ``[limits]`` keys of ``challenge.toml``."""

    documents_per_question: int = 10
    snippets_per_question: int = 10
    concepts_per_question: int = 10
    triples_per_question: int = 10
    factoid_answers: int = 5
    list_answers: int = 100
    synonyms_per_answer: int = 10
    labels_per_document: int = 100


@dataclass(frozen=True)
class Limits(QuestionLimits):
    """``[limits]``: teams, run size, and the per-question caps of runs (their BioASQ
    defaults and sources: the module's docstring)."""

    systems_per_team: int = 5
    max_run_bytes: int = 20_000_000
    run_seconds: int = 300  # score-all stops scoring a run after this long (the run's error)
    shard_runs: int = 200  # publish.yml scores in shard jobs when more runs than this need scoring
