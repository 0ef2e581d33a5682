"""The demo challenge's configuration: calendar (batches, test sets and their windows), teams,
their systems and what each system enters, the named special cases (a late run, a team with
too few Task A test sets, a topic left unanswered), and the text of ``challenge.toml`` and
``teams/*.toml``."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from scorer.formats.sealed import DEMO_KEY_FILE, DEMO_RECIPIENT

from .text import toml_string, utc

TASKB_BATCHES = [  # id, Phase A opens (Phase A: 24 h; Phase B opens 2 days later, 24 h), concepts in gold
    ("batch1", datetime(2026, 3, 2, 10, tzinfo=UTC), True),
    ("batch2", datetime(2026, 3, 16, 10, tzinfo=UTC), False),
    ("batch3", datetime(2026, 3, 30, 10, tzinfo=UTC), True),
]
TASKB_TYPE_COUNTS = {"batch1": (6, 5, 5, 4), "batch2": (5, 6, 4, 5), "batch3": (5, 5, 5, 5)}
TASKA_BATCHES = [("batch1", datetime(2026, 1, 5, 10, tzinfo=UTC)),
                 ("batch2", datetime(2026, 2, 9, 10, tzinfo=UTC))]
TASKA_TESTSETS = 5
TASKA_DOCUMENTS = 50
BEST_K = 4
#: The Task B batch whose gold is sealed ([gold] sealed = ["taskB"]: batches 1 and 2 are
#: revealed, their plain gold committed after [gold] reveal; docs/demo.md).
SEALED_GOLD_BATCH = "batch3"
#: From when the plain gold of Task B may be committed: after the demo's last window.
GOLD_REVEAL = datetime(2026, 6, 1, tzinfo=UTC)
#: The demo's sealing key, the one of DEMO_RECIPIENT (scorer.formats.sealed): PUBLIC, written at
#: DEMO_KEY_FILE so that anyone can open the demo's sealed gold (mcqa runs and the gold of
#: SEALED_GOLD_BATCH are sealed to it).  The note after the key is ignored by age and the scorer.
DEMO_KEY = """-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz
c2gtZWQyNTUxOQAAACBdgvgI6VC/1didFJM2Rewl57eoEqUUGFFeXzT4dPv+bgAA
AIiBkafXgZGn1wAAAAtzc2gtZWQyNTUxOQAAACBdgvgI6VC/1didFJM2Rewl57eo
EqUUGFFeXzT4dPv+bgAAAECXWpuNTe1jSseBFSowAqtBnIzwouTe3UTvTQ4zwMne
f12C+AjpUL/V2J0UkzZF7CXnt6gSpRQYUV5fNPh0+/5uAAAAAAECAwQF
-----END OPENSSH PRIVATE KEY-----

DEMO ONLY - THIS PRIVATE KEY IS PUBLIC.

It is the sealing key of the demo challenge of this repository (docs/demo.md): it is
committed so that anyone can open the demo's sealed gold and build the demo's site, for
example
    age -d -i demo/DEMO-ONLY-sealing-key.txt gold/taskb/batch3/phaseB.json.age
Anything sealed to its recipient can be read by anyone. Never use it for a real challenge:
the scorer uses it only for a challenge.toml with demo = true, and refuses its recipient
in any other (demo-recipient). python scripts/make_demo.py --clean removes it;
python -m scorer keygen makes a real key (docs/organizers.md, "Sealed runs").
"""
MANUAL_BATCHES = ("batch1",)
MCQA_BATCHES = [("batch1", datetime(2026, 4, 13, 10, tzinfo=UTC)),   # window of 48 h each
                ("batch2", datetime(2026, 4, 27, 10, tzinfo=UTC))]
SYNERGY_ROUNDS = [("round1", datetime(2026, 5, 4, 10, tzinfo=UTC)),   # window of 48 h each, two weeks apart
                  ("round2", datetime(2026, 5, 18, 10, tzinfo=UTC))]
MCQA_TOPICS = [("genes", "Genes and what they do"), ("drugs", "Drug development"), ("diseases", "Rare diseases")]
MCQA_TESTS_PER_TOPIC = 2   # reading tests per topic and batch (6 per batch), 5 questions each, 5 candidates
#: (team, system) -> (batch, topic) the system leaves wholly unanswered: its c@1 there is 0
MCQA_SILENT_TOPIC = {("medqa-friends", "medqa-gen"): ("batch1", "drugs")}

TEAMS = {
    "organizers": {
        "name": "Organizers (baselines)", "members": ["demo-organizer"],
        "url": "https://example.org/demo-organizers",
        "systems": [
            {"id": "bm25-baseline", "name": "BM25 baseline", "baseline": True,
             "description": "Phase A: BM25 over titles and abstracts, the top sentences as snippets, no concepts. "
                            "Phase B: 'yes' for every yes/no question, entities of the top snippet as factoid "
                            "and list answers, the first snippet as the ideal answer."},
            {"id": "frequency-baseline", "name": "Most frequent labels", "baseline": True,
             "description": "Task A: the ten MeSH-like labels most frequent in earlier test sets, for every document."},
            {"id": "random-baseline", "name": "Random guess", "baseline": True,
             "description": "Reading tests: a candidate drawn uniformly at random for every question "
                            "(expected c@1 0.2 with five candidates)."},
        ],
    },
    "helix": {
        "name": "Helix Retrieval Group", "members": ["helix-ana", "helix-ben"],
        "url": "https://example.org/helix",
        "systems": [
            {"id": "helix-dense", "name": "Dense retrieval + reader",
             "description": "Dense passage retrieval fine-tuned on earlier batches, a cross-encoder reranker "
                            "and an extractive reader for exact answers; answers every category."},
            {"id": "helix-hybrid", "name": "Hybrid BM25 + dense",
             "description": "BM25 and dense scores combined; submits no concepts."},
            {"id": "helix-small", "name": "Small reader",
             "description": "A distilled reader, entered in the last batch only."},
        ],
    },
    "medqa-friends": {
        "name": "<b>MedQA</b> & \"Friends\"",
        "members": ["medqa-lead"],
        "systems": [
            {"id": "medqa-gen", "name": "Generative QA <v2>",
             "description": "A generative model prompted with the snippets; abstains when unsure. "
                            "Markup such as <i>this</i> & that must be shown as text."},
            {"id": "medqa-extract", "name": "Extractive QA",
             "description": "Span extraction over the gold snippets."},
        ],
    },
    "northbridge": {
        "name": "Northbridge Semantic Indexing", "members": ["nb-indexer", "nb-intern"],
        "url": "https://example.org/northbridge",
        "systems": [
            {"id": "nb-hier", "name": "Hierarchical label tree",
             "description": "A classifier per node of the label hierarchy, decoded top-down."},
            {"id": "nb-flat", "name": "Flat multi-label",
             "description": "One-vs-rest linear classifiers with a tuned threshold per label."},
            {"id": "nb-qa", "name": "Retrieval side project",
             "description": "An experimental Phase A document retriever (no snippets), entered in one batch."},
        ],
    },
    "quokka": {
        "name": "Quokka QA (student team)", "members": ["quokka-student"],
        "systems": [
            {"id": "quokka-1", "name": "Quokka first attempt",
             "description": "TF-IDF retrieval and rule-based answers; a course project."},
            {"id": "quokka-mesh", "name": "Quokka indexer",
             "description": "k-nearest-neighbour label transfer; missed two test sets of the first batch."},
        ],
    },
}

# Who runs what: (team, system) -> quality (0 weak .. 1 strong) and entries.
# A Task B entry is (batch, phase); ``aplus`` is the change of quality of its Phase A+ runs
# (answers without the gold snippets; negative: the gold evidence helps the system), sent in
# every batch where it has a Phase B run; a Task A entry is (batch, test set number 1..5);
# mcqa lists reading-test batches, with ``abstain`` the share of questions left unanswered.
_ALL_A = [(b, t) for b, _ in TASKA_BATCHES for t in range(1, TASKA_TESTSETS + 1)]
SYSTEMS = {
    ("organizers", "bm25-baseline"): dict(
        quality=0.35, baseline=True, concepts=False, skip=0.0, aplus=-0.1, synergy=["round1", "round2"],
        taskb=[(b, p) for b, _, _ in TASKB_BATCHES for p in ("phaseA", "phaseB")]),
    ("organizers", "frequency-baseline"): dict(quality=0.0, baseline=True, taska=_ALL_A),
    ("organizers", "random-baseline"): dict(quality=0.0, baseline=True, mcqa=["batch1", "batch2"]),
    ("helix", "helix-dense"): dict(
        quality=0.85, concepts=True, skip=0.0, mcqa=["batch1", "batch2"], aplus=-0.3, synergy=["round1", "round2"],
        taskb=[(b, p) for b, _, _ in TASKB_BATCHES for p in ("phaseA", "phaseB")]),
    ("helix", "helix-hybrid"): dict(
        quality=0.7, concepts=False, skip=0.0, aplus=0.15,  # no better with the gold evidence
        taskb=[("batch1", "phaseA"), ("batch2", "phaseA"),
               ("batch1", "phaseB"), ("batch2", "phaseB"), ("batch3", "phaseB")]),
    ("helix", "helix-small"): dict(quality=0.55, skip=0.0, taskb=[("batch3", "phaseB")]),
    ("medqa-friends", "medqa-gen"): dict(
        quality=0.6, concepts=False, skip=0.1, abstain=0.25, mcqa=["batch1", "batch2"], mcqa_abstain=0.45, aplus=-0.2,
        synergy=["round2"],
        taskb=[("batch1", "phaseA"), ("batch3", "phaseA"),
               ("batch1", "phaseB"), ("batch2", "phaseB"), ("batch3", "phaseB")]),
    ("medqa-friends", "medqa-extract"): dict(quality=0.45, skip=0.0,
                                              taskb=[("batch2", "phaseB"), ("batch3", "phaseB")]),
    ("northbridge", "nb-hier"): dict(quality=0.85, taska=_ALL_A),
    ("northbridge", "nb-flat"): dict(quality=0.6, taska=[e for e in _ALL_A if e != ("batch2", 3)]),
    ("northbridge", "nb-qa"): dict(quality=0.5, concepts=True, snippets=False, skip=0.0, taskb=[("batch2", "phaseA")]),
    ("quokka", "quokka-1"): dict(
        quality=0.2, concepts=False, skip=0.2, mcqa=["batch1", "batch2"], synergy=["round1", "round2"],
        taskb=[(b, "phaseA") for b, _, _ in TASKB_BATCHES] + [("batch1", "phaseB"), ("batch2", "phaseB")]),
    ("quokka", "quokka-mesh"): dict(
        quality=0.4, taska=[("batch1", 1), ("batch1", 2), ("batch1", 4)] + [("batch2", t) for t in range(1, 6)]),
}
SHORT_TEAM = ("quokka", "quokka-mesh", "batch1")          # fewer Task A test sets than best_k
LATE_RUN = "submissions/taskB/batch2/phaseB/quokka/quokka-1.json"  # received after its window closed


def taskb_windows(opens: datetime) -> dict[str, tuple[datetime, datetime]]:
    day = timedelta(days=1)
    return {"phaseA": (opens, opens + day), "phaseB": (opens + 2 * day, opens + 3 * day)}


def taskb_run_windows(opens: datetime) -> dict[str, tuple[datetime, datetime]]:
    """The window of each Task B phase a run is sent in: Phase A+ runs in the Phase A window."""
    windows = taskb_windows(opens)
    return {**windows, "phaseAplus": windows["phaseA"]}


def mcqa_window(opens: datetime) -> tuple[datetime, datetime]:
    return opens, opens + timedelta(days=2)


def synergy_window(opens: datetime) -> tuple[datetime, datetime]:
    return opens, opens + timedelta(days=2)


def taska_windows(opens: datetime) -> dict[str, tuple[datetime, datetime]]:
    return {f"week{t}": (opens + timedelta(weeks=t - 1), opens + timedelta(weeks=t - 1, hours=30))
            for t in range(1, TASKA_TESTSETS + 1)}


def challenge_toml() -> str:
    lines = [
        "# The demo challenge: SYNTHETIC data generated by scripts/make_demo.py (see docs/demo.md).",
        "# Organizers: remove it with `python scripts/make_demo.py --clean` and write your own.",
        "",
        "[challenge]",
        'name = "BioASQ Demo Challenge (synthetic)"',
        "description = " + toml_string(
            "**This is a demo with synthetic data.** Every question, article, gene, drug, disease, "
            "MeSH-like label, team and run was made up by `scripts/make_demo.py`; PubMed ids 9xxxxxxx and "
            "descriptors D9xxxxx do not refer to real records, and no real patient data is included. "
            "It shows what a challenge looks like: three Task B batches (Phase A, Phase A+ and Phase B), Task A "
            "with two batches of five test sets, two batches of multiple-choice reading tests (QA4MRE "
            "style, ranked by c@1), two Synergy rounds (a question carried over, expert feedback, a question "
            "not yet ready to answer), baselines, a late run and a team with too few test sets."),
        "demo = true",
        "",
        "[rules]",
        'flavor = "official"',
        "edition = 9",
        f"best_k = {BEST_K}",
        "rank_late_runs = false",
        "accept_late_runs = false",
        "alpha = 0.05",
        "trials = 10000",
        "seed = 1",
        "",
        "[limits]",
        "systems_per_team = 5",
        "max_run_bytes = 20000000",
        "",
        "[submissions]",
        "# mcqa runs are sealed: a pull request adds <system>.json.age (python -m scorer seal), opened after",
        "# the window closes by the publish job, which holds the private key (docs/organizers.md, 'Sealed runs').",
        f"# DEMO ONLY: the private key of this recipient is public ({DEMO_KEY_FILE}); a real challenge",
        "# makes its own with python -m scorer keygen",
        'sealed = ["mcqa"]',
        f'recipient = "{DEMO_RECIPIENT}"',
        "",
        "[gold]",
        "# Task B gold is private (docs/organizers.md, 'Private gold'): the gold of "
        f"{SEALED_GOLD_BATCH} stays sealed",
        f"# (gold/taskb/{SEALED_GOLD_BATCH}/*.json.age, to the recipient above); the plain gold of the other "
        "batches was committed after the reveal",
        'sealed = ["taskB"]',
        f"reveal = {utc(GOLD_REVEAL)}",
        "",
        "[official_measures]",
        'concepts = "concepts.map"',
        'documents = "documents.map"',
        'snippets = "snippets.f1"',
        'triples = "triples.map"',
        'yesno = "yesno.macro_f1"',
        'factoid = "factoid.mrr"',
        'list = "list.f1"',
        'ideal = "ideal.rougesu4.f1"',
        'taskA = ["flat.micro_f1", "lca.f1"]',
        'mcqa = "mcqa.c_at_1"',
        "",
        "[taskb]",
    ]
    for i, (batch, opens, _) in enumerate(TASKB_BATCHES, 1):
        w = taskb_windows(opens)
        lines += ["", "[[taskb.batches]]", f'id = "{batch}"', f'name = "Batch {i}"']
        lines += [f"{p} = {{ opens = {utc(a)}, closes = {utc(b)} }}" for p, (a, b) in w.items()]
        lines.insert(-1, "phaseAplus = true  # Phase A+: exact and ideal answers in the Phase A window")
    lines += ["", "[taska]", 'hierarchy = "gold/mesh/hierarchy.txt"']
    for i, (batch, opens) in enumerate(TASKA_BATCHES, 1):
        lines += ["", "[[taska.batches]]", f'id = "{batch}"', f'name = "Batch {i}"', "testsets = ["]
        lines += [f'  {{ id = "{t}", opens = {utc(a)}, closes = {utc(b)} }},' for t, (a, b) in taska_windows(opens).items()]
        lines += ["]"]
    lines += ["", "[mcqa]"]
    for i, (batch, opens) in enumerate(MCQA_BATCHES, 1):
        a, b = mcqa_window(opens)
        lines += ["", "[[mcqa.batches]]", f'id = "{batch}"', f'name = "Reading tests {i}"',
                  f"window = {{ opens = {utc(a)}, closes = {utc(b)} }}"]
    lines += ["", "[synergy]", "exclude_judged = true  # what earlier rounds' feedback judged is not scored again"]
    for i, (name, opens) in enumerate(SYNERGY_ROUNDS, 1):
        a, b = synergy_window(opens)
        lines += ["", "[[synergy.rounds]]", f'id = "{name}"', f'name = "Round {i}"',
                  f"window = {{ opens = {utc(a)}, closes = {utc(b)} }}"]
    return "\n".join(lines) + "\n"


def team_toml(team: dict) -> str:
    lines = ["# Demo team (synthetic): generated by scripts/make_demo.py", f"name = {toml_string(team['name'])}",
             "members = [" + ", ".join(toml_string(m) for m in team["members"]) + "]"]
    if team.get("url"):
        lines.append(f"url = {toml_string(team['url'])}")
    for s in team["systems"]:
        lines += ["", "[[systems]]", f"id = {toml_string(s['id'])}", f"name = {toml_string(s['name'])}",
                  f"description = {toml_string(s['description'])}"]
        if s.get("baseline"):
            lines.append("baseline = true")
    return "\n".join(lines) + "\n"


#: The demo's run cards (submissions/cards/<team>/<system>.toml; docs/submit.md): some
#: systems disclose everything, some part, Quokka's and a few others nothing ("not disclosed").
CARDS = {
    ("helix", "helix-dense"): {
        "model": "PubMedBERT retriever + BioBART reader", "size": "400M", "weights": "open", "inference": "local",
        "web_search": False, "agents": False, "external_data": ["bioasq-gold"], "earlier_bioasq": ["training"],
        "corpus": "PubMed annual baseline 2026 (demo library)",
        "primary": True, "code": "https://example.org/helix/dense-code"},
    ("helix", "helix-hybrid"): {
        "model": "BM25 + MiniLM", "size": "33M", "weights": "open", "external_data": [],
        "corpus": "PubMed annual baseline 2026 (demo library)"},
    ("medqa-friends", "medqa-gen"): {  # an LLM system: every field of an LLM card
        "model": "A hosted chat model", "model_version": "demo-chat-2025-11-20", "weights": "api", "inference": "api",
        "knowledge_cutoff": "2025-06", "web_search": True, "agents": False,
        "external_data": ["bioasq-gold", "other-qa"], "earlier_bioasq": ["prompts"], "primary": True,
        "paper": "https://example.org/medqa/paper"},
    ("northbridge", "nb-hier"): {
        "model": "Label-tree classifier", "size": "12M", "weights": "closed", "external_data": ["bioasq-gold"],
        "primary": ["taskA/batch1", "taskA/batch2"]},
    ("organizers", "bm25-baseline"): {
        "model": "BM25", "weights": "open", "inference": "local", "web_search": False, "agents": False,
        "external_data": [], "earlier_bioasq": [], "corpus": "PubMed annual baseline 2026 (demo library)",
        "primary": True, "code": "https://example.org/demo-organizers/baselines"},
}


def card_toml(card: dict) -> str:
    """A run card's TOML, its keys in the order of the schema."""
    lines = ["# Demo run card (synthetic): generated by scripts/make_demo.py"]
    for key in ("model", "model_version", "size", "weights", "inference", "knowledge_cutoff", "web_search", "agents",
                "external_data", "earlier_bioasq", "corpus", "primary", "code", "paper"):
        if key not in card:
            continue
        value = card[key]
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, list):
            text = "[" + ", ".join(toml_string(v) for v in value) + "]"
        else:
            text = toml_string(value)
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"
