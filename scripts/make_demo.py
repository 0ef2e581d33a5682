#!/usr/bin/env python3
"""Generate the demo challenge that ships in this repository (synthetic data only).

    python scripts/make_demo.py              # (re)write the demo at the repository root
    python scripts/make_demo.py --out DIR    # write it elsewhere
    python scripts/make_demo.py --clean      # remove the demo files (see docs/demo.md)

Everything is made up: genes, drugs, diseases, PubMed ids (9xxxxxxx), MeSH-like
descriptors (D9xxxxx), teams, systems and runs.  The output depends on nothing but this
file: a fixed seed, no wall-clock time, sorted iteration, so running the script twice
gives byte-identical files.

Before writing, the script removes the files it generates (and only those), then
directories left empty by that removal.  ``--clean`` does the removal alone and keeps any
generated path whose content was changed by hand (listed; ``--force`` removes it anyway).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

SEED = 20260105
REPO = Path(__file__).resolve().parent.parent

# --- the made-up world -------------------------------------------------------------------

GENES = [  # symbol, full name (synonym), function, the tissue that mainly expresses it
    ("VELK1", "velkin 1", "regulates mitochondrial fission in response to oxidative stress", "skeletal muscle"),
    ("ZORP3", "zorpin 3", "anchors ciliary dynein arms to the axoneme", "lung"),
    ("QTRN2", "quatrin 2", "acts as a scaffold for the assembly of stress granules", "liver"),
    ("MYRB8", "myrobin 8", "controls calcium release from the sarcoplasmic reticulum", "skeletal muscle"),
    ("HLXN5", "helixin 5", "stabilises tight junctions between epithelial cells", "lung"),
    ("TAVN4", "tavnin 4", "degrades misfolded proteins in the endoplasmic reticulum", "liver"),
    ("PRYL6", "pyrelin 6", "transports long-chain fatty acids into peroxisomes", "liver"),
    ("GOLQ2", "golquin 2", "sorts cargo proteins at the trans-Golgi network", "pancreatic islets"),
    ("NEXR9", "nexorin 9", "represses the transcription of inflammatory cytokines", "bone marrow"),
    ("LUMD3", "lumidin 3", "maintains the outer segments of photoreceptor cells", "retina"),
    ("FARB7", "farbin 7", "phosphorylates ribosomal proteins during cell growth", "skeletal muscle"),
    ("KESH1", "keshin 1", "repairs double-strand DNA breaks by end joining", "bone marrow"),
    ("WOLT2", "woltrin 2", "guides axon growth during cerebellar development", "cerebellum"),
    ("BRYX9", "bryxin 9", "clears iron from senescent red blood cells", "bone marrow"),
    ("OSMQ4", "osmoquin 4", "senses extracellular osmolarity in the renal tubule", "kidney"),
    ("CALV6", "calvorin 6", "promotes insulin granule exocytosis in beta cells", "pancreatic islets"),
    ("DUNK3", "dunkin 3", "modulates the activity of voltage-gated sodium channels", "cerebellum"),
    ("PELM5", "pelmin 5", "controls the differentiation of haematopoietic stem cells", "bone marrow"),
    ("RIVO8", "rivotin 8", "links the actin cytoskeleton to focal adhesions", "kidney"),
    ("SARN1", "sarnexin 1", "exports messenger RNA from the nucleus", "retina"),
]
DRUGS = [  # name, development code, drug class
    ("zorvatinib", "ZRV-101", "small-molecule kinase inhibitor"),
    ("quelimab", "QLM-22", "humanised monoclonal antibody"),
    ("tavorastat", "TVS-7", "oral enzyme inhibitor"),
    ("belunexib", "BNX-340", "selective allosteric inhibitor"),
    ("mirovaptide", "MVP-8", "synthetic peptide agonist"),
    ("casparin", "CSP-12", "antisense oligonucleotide"),
    ("lodexaciclib", "LDX-5", "small-molecule kinase inhibitor"),
    ("fenprazumab", "FPZ-9", "fully human monoclonal antibody"),
    ("ostevaline", "OSV-3", "oral channel modulator"),
    ("valdomycin", "VDM-14", "macrocyclic antibiotic derivative"),
    ("pirantrogel", "PTG-2", "gene therapy vector"),
    ("sulvotide", "SVT-61", "small interfering RNA"),
    ("keratolizumab", "KTZ-44", "bispecific antibody"),
    ("dravoxetan", "DVX-18", "oral receptor antagonist"),
]
DISEASES = [  # name, abbreviation, main symptom
    ("Harwick syndrome", "HWS", "progressive muscle weakness"),
    ("Brennan-Oakes disease", "BOD", "recurrent fevers and joint pain"),
    ("Calder myopathy", "CLM", "exercise intolerance"),
    ("Lindqvist ataxia", "LQA", "loss of balance and coordination"),
    ("Merrow fibrosis", "MRF", "scarring of the lung tissue"),
    ("Tolland anaemia", "TLA", "chronic fatigue and pallor"),
    ("Vesper encephalopathy", "VSE", "seizures in early childhood"),
    ("Ashgrove dermatosis", "AGD", "scaly skin plaques"),
    ("Keller-Brandt nephropathy", "KBN", "protein loss in the urine"),
    ("Ormond retinal dystrophy", "ORD", "night blindness"),
]
TISSUES = [  # name, synonym
    ("liver", "hepatic tissue"), ("kidney", "renal tissue"), ("cerebellum", "cerebellar cortex"),
    ("skeletal muscle", "striated muscle"), ("pancreatic islets", "islets of Langerhans"),
    ("retina", "retinal tissue"), ("bone marrow", "medulla ossium"), ("lung", "pulmonary tissue"),
]
EFFECTS = [  # adverse effect, synonym
    ("nausea", "sickness"), ("headache", "cephalalgia"), ("fatigue", "tiredness"),
    ("neutropenia", "low neutrophil count"), ("rash", "skin eruption"), ("diarrhoea", "diarrhea"),
    ("elevated liver enzymes", "transaminase elevation"), ("peripheral oedema", "peripheral edema"),
    ("dizziness", "vertigo"), ("hypertension", "high blood pressure"),
]
MODELS = ["mice", "zebrafish", "rats", "cultured human cells", "patient-derived organoids", "fruit flies"]
METHODS = ["RNA sequencing", "mass spectrometry", "CRISPR screening", "single-cell profiling",
           "immunohistochemistry", "a genome-wide association study", "whole-exome sequencing"]
FILLERS = [
    "We analysed {n} samples from {model} using {method}.",
    "Data were collected over a period of {w} weeks.",
    "Further studies are needed to confirm these findings in larger cohorts.",
    "The study was designed as a synthetic example and refers to no real data.",
    "Results were consistent across {n} independent replicates.",
    "Statistical analysis used mixed-effects models with {w} covariates.",
    "Earlier work in {model} had produced conflicting results.",
    "Here we combine {method} with functional assays in {model}.",
    "These observations open new avenues for translational research.",
    "Samples were processed within {w} hours of collection.",
]
CATEGORIES = [
    "anatomy_category", "organisms_category", "diseases_category", "chemicals_and_drugs_category",
    "techniques_category", "psychiatry_and_psychology_category", "biological_sciences_category",
    "physical_sciences_category", "health_care_category", "information_science_category",
    "persons_category", "geographic_locations_category",
]
PUBMED = "http://www.ncbi.nlm.nih.gov/pubmed/"
MESH_URI = "http://www.nlm.nih.gov/cgi/mesh/2016/MB_cgi?field=uid&exact=true&term="

# --- the challenge: calendar, teams, systems ---------------------------------------------

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
MANUAL_BATCHES = ("batch1",)
MCQA_BATCHES = [("batch1", datetime(2026, 4, 13, 10, tzinfo=UTC)),   # window of 48 h each
                ("batch2", datetime(2026, 4, 27, 10, tzinfo=UTC))]
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
# A Task B entry is (batch, phase); a Task A entry is (batch, test set number 1..5);
# mcqa lists reading-test batches, with ``abstain`` the share of questions left unanswered.
_ALL_A = [(b, t) for b, _ in TASKA_BATCHES for t in range(1, TASKA_TESTSETS + 1)]
SYSTEMS = {
    ("organizers", "bm25-baseline"): dict(
        quality=0.35, baseline=True, concepts=False, skip=0.0,
        taskb=[(b, p) for b, _, _ in TASKB_BATCHES for p in ("phaseA", "phaseB")]),
    ("organizers", "frequency-baseline"): dict(quality=0.0, baseline=True, taska=_ALL_A),
    ("organizers", "random-baseline"): dict(quality=0.0, baseline=True, mcqa=["batch1", "batch2"]),
    ("helix", "helix-dense"): dict(
        quality=0.85, concepts=True, skip=0.0, mcqa=["batch1", "batch2"],
        taskb=[(b, p) for b, _, _ in TASKB_BATCHES for p in ("phaseA", "phaseB")]),
    ("helix", "helix-hybrid"): dict(
        quality=0.7, concepts=False, skip=0.0,
        taskb=[("batch1", "phaseA"), ("batch2", "phaseA"),
               ("batch1", "phaseB"), ("batch2", "phaseB"), ("batch3", "phaseB")]),
    ("helix", "helix-small"): dict(quality=0.55, skip=0.0, taskb=[("batch3", "phaseB")]),
    ("medqa-friends", "medqa-gen"): dict(
        quality=0.6, concepts=False, skip=0.1, abstain=0.25, mcqa=["batch1", "batch2"], mcqa_abstain=0.45,
        taskb=[("batch1", "phaseA"), ("batch3", "phaseA"),
               ("batch1", "phaseB"), ("batch2", "phaseB"), ("batch3", "phaseB")]),
    ("medqa-friends", "medqa-extract"): dict(quality=0.45, skip=0.0,
                                              taskb=[("batch2", "phaseB"), ("batch3", "phaseB")]),
    ("northbridge", "nb-hier"): dict(quality=0.85, taska=_ALL_A),
    ("northbridge", "nb-flat"): dict(quality=0.6, taska=[e for e in _ALL_A if e != ("batch2", 3)]),
    ("northbridge", "nb-qa"): dict(quality=0.5, concepts=True, snippets=False, skip=0.0, taskb=[("batch2", "phaseA")]),
    ("quokka", "quokka-1"): dict(
        quality=0.2, concepts=False, skip=0.2, mcqa=["batch1", "batch2"],
        taskb=[(b, "phaseA") for b, _, _ in TASKB_BATCHES] + [("batch1", "phaseB"), ("batch2", "phaseB")]),
    ("quokka", "quokka-mesh"): dict(
        quality=0.4, taska=[("batch1", 1), ("batch1", 2), ("batch1", 4)] + [("batch2", t) for t in range(1, 6)]),
}
SHORT_TEAM = ("quokka", "quokka-mesh", "batch1")          # fewer Task A test sets than best_k
LATE_RUN = "submissions/taskB/batch2/phaseB/quokka/quokka-1.json"  # received after its window closed


def utc(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def taskb_windows(opens: datetime) -> dict[str, tuple[datetime, datetime]]:
    day = timedelta(days=1)
    return {"phaseA": (opens, opens + day), "phaseB": (opens + 2 * day, opens + 3 * day)}


def mcqa_window(opens: datetime) -> tuple[datetime, datetime]:
    return opens, opens + timedelta(days=2)


def taska_windows(opens: datetime) -> dict[str, tuple[datetime, datetime]]:
    return {f"week{t}": (opens + timedelta(weeks=t - 1), opens + timedelta(weeks=t - 1, hours=30))
            for t in range(1, TASKA_TESTSETS + 1)}


# --- JSON and TOML text ------------------------------------------------------------------

def dump_json(value) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False) + "\n"


def dump_taska(documents: list[dict]) -> str:
    """Task A files: one document per line (a few thousand labels stay readable and small)."""
    lines = [json.dumps(d, ensure_ascii=False, separators=(", ", ": ")) for d in documents]
    return '{"documents": [\n' + ",\n".join(lines) + "\n]}\n"


def toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid TOML basic string


# --- Task B: questions, documents, snippets ----------------------------------------------

class World:
    """Facts of the made-up biomedicine, drawn once from the seed."""

    def __init__(self, rng: random.Random):
        tissues = {t[0]: t for t in TISSUES}
        self.gene_tissue = {g[0]: tissues[g[3]] for g in GENES}
        genes = [g[0] for g in GENES]
        self.drug_target = {d[0]: rng.choice(genes) for d in DRUGS}
        self.drug_effects = {d[0]: rng.sample(EFFECTS, rng.randint(3, 5)) for d in DRUGS}
        self.disease_genes = {d[0]: rng.sample(genes, rng.randint(3, 5)) for d in DISEASES}
        drugs = [d[0] for d in DRUGS]
        self.disease_drug = {d[0]: rng.choice(drugs) for d in DISEASES}
        self.gene = {g[0]: g for g in GENES}
        self.drug = {d[0]: d for d in DRUGS}
        self.disease = {d[0]: d for d in DISEASES}


def cap(text: str) -> str:
    return text[0].upper() + text[1:]


def make_question(kind: str, rng: random.Random, world: World, used: set) -> dict:
    """One question: body, exact answer (synonym lists), ideal answers, the fact sentences
    the snippets are made of, and candidate answers of the right kind for the runs."""
    genes, drugs, diseases = list(world.gene), list(world.drug), list(world.disease)
    while True:
        if kind == "yesno":
            template = rng.choice(["drug-disease", "gene-tissue", "drug-gene", "gene-disease"])
            yes = rng.random() < 0.55
            if template == "drug-disease":
                dis = rng.choice(diseases)
                drug = world.disease_drug[dis] if yes else rng.choice([d for d in drugs if d != world.disease_drug[dis]])
                key = (template, dis, drug)
                body = f"Is {drug} effective for the treatment of {dis}?"
                code = world.drug[drug][1]
                if yes:
                    facts = [f"In a randomised phase II trial, {drug} reduced symptom scores in {dis} compared with placebo.",
                             f"{cap(drug)} ({code}) was approved for {dis} after two positive trials."]
                    ideal = f"Yes. {cap(drug)} is effective for {dis}: it reduced symptom scores compared with placebo."
                else:
                    facts = [f"{cap(drug)} failed to improve clinical outcomes in a randomised trial of {dis}.",
                             f"No benefit of {drug} ({code}) over placebo was seen in {dis}."]
                    ideal = f"No. {cap(drug)} did not improve outcomes in {dis} in a randomised trial."
            elif template == "gene-tissue":
                gene = rng.choice(genes)
                tissue = world.gene_tissue[gene] if yes else rng.choice([t for t in TISSUES if t != world.gene_tissue[gene]])
                key = (template, gene, tissue[0])
                body = f"Is {gene} highly expressed in the {tissue[0]}?"
                home = world.gene_tissue[gene][0]
                facts = [f"{gene} transcripts are most abundant in the {home}.",
                         f"Expression of {world.gene[gene][1]} ({gene}) in the {tissue[0]} was "
                         + ("high in every sample tested." if yes else "below the detection limit.")]
                ideal = (f"Yes. {gene} is highly expressed in the {tissue[0]}." if yes else
                         f"No. {gene} is expressed mainly in the {home}, not in the {tissue[0]}.")
            elif template == "drug-gene":
                drug = rng.choice(drugs)
                gene = world.drug_target[drug] if yes else rng.choice([g for g in genes if g != world.drug_target[drug]])
                key = (template, drug, gene)
                body = f"Does {drug} inhibit {gene}?"
                target = world.drug_target[drug]
                facts = [f"{cap(drug)} binds the catalytic pocket of {target} with nanomolar affinity.",
                         f"{cap(drug)} had " + ("a strong" if yes else "no measurable") + f" effect on {gene} activity in {rng.choice(MODELS)}."]
                ideal = (f"Yes. {cap(drug)} is an inhibitor of {gene}." if yes else
                         f"No. {cap(drug)} inhibits {target}, not {gene}.")
            else:
                dis = rng.choice(diseases)
                gene = rng.choice(world.disease_genes[dis]) if yes else rng.choice([g for g in genes if g not in world.disease_genes[dis]])
                key = (template, dis, gene)
                body = f"Are mutations in {gene} associated with {dis}?"
                facts = [f"Loss-of-function variants in {gene} were "
                         + ("enriched" if yes else "not enriched") + f" in families with {dis}.",
                         f"{world.disease[dis][1]} was " + ("linked" if yes else "not linked") + f" to the {gene} locus by {rng.choice(METHODS)}."]
                ideal = (f"Yes. Mutations in {gene} are associated with {dis}." if yes else
                         f"No. Mutations in {gene} have not been associated with {dis}.")
            exact, candidates = ("yes" if yes else "no"), ["yes", "no"]
        elif kind == "factoid":
            template = rng.choice(["target", "tissue", "drug", "gene"])
            if template == "target":
                drug = rng.choice(drugs)
                gene = world.drug_target[drug]
                key = (template, drug)
                body = f"Which protein is the molecular target of {drug}?"
                exact = [[gene, world.gene[gene][1]]]
                facts = [f"{cap(drug)} is a {world.drug[drug][2]} that targets {gene}.",
                         f"Binding of {drug} to {world.gene[gene][1]} blocks its activity in {rng.choice(MODELS)}."]
                ideal = f"{cap(drug)} targets {gene} ({world.gene[gene][1]})."
                candidates = [[g, world.gene[g][1]] for g in genes]
            elif template == "tissue":
                gene = rng.choice(genes)
                tissue = world.gene_tissue[gene]
                key = (template, gene)
                body = f"In which tissue is {gene} predominantly expressed?"
                exact = [list(tissue)]
                facts = [f"{gene} is predominantly expressed in the {tissue[0]}.",
                         f"Single-cell profiling located {world.gene[gene][1]} transcripts to the {tissue[1]}."]
                ideal = f"{gene} is predominantly expressed in the {tissue[0]}."
                candidates = [list(t) for t in TISSUES]
            elif template == "drug":
                dis = rng.choice(diseases)
                drug = world.disease_drug[dis]
                key = (template, dis)
                body = f"Which drug is approved for the treatment of {dis}?"
                exact = [[drug, world.drug[drug][1]]]
                facts = [f"{cap(drug)} ({world.drug[drug][1]}) is the first drug approved for {dis}.",
                         f"Patients with {world.disease[dis][1]} receiving {drug} showed fewer episodes of {world.disease[dis][2]}."]
                ideal = f"{cap(drug)} is approved for the treatment of {dis}."
                candidates = [[d, world.drug[d][1]] for d in drugs]
            else:
                dis = rng.choice(diseases)
                gene = world.disease_genes[dis][0]
                key = (template, dis)
                body = f"Which gene is most frequently mutated in {dis}?"
                exact = [[gene, world.gene[gene][1]]]
                facts = [f"Mutations in {gene} account for most cases of {dis}.",
                         f"{cap(world.gene[gene][1])} variants were found in the majority of {world.disease[dis][1]} families."]
                ideal = f"{gene} is the gene most frequently mutated in {dis}."
                candidates = [[g, world.gene[g][1]] for g in genes]
        elif kind == "list":
            template = rng.choice(["disease-genes", "effects", "tissue-genes"])
            if template == "disease-genes":
                dis = rng.choice(diseases)
                items = [[g, world.gene[g][1]] for g in world.disease_genes[dis]]
                key = (template, dis)
                body = f"Which genes are associated with {dis}?"
                facts = [f"Variants in {', '.join(i[0] for i in items[:-1])} and {items[-1][0]} cause {dis}.",
                         f"{dis} is genetically heterogeneous."]
                ideal = f"{dis} is associated with mutations in {', '.join(i[0] for i in items[:-1])} and {items[-1][0]}."
                candidates = [[g, world.gene[g][1]] for g in genes]
            elif template == "effects":
                drug = rng.choice(drugs)
                items = [list(e) for e in world.drug_effects[drug]]
                key = (template, drug)
                body = f"List the common adverse effects of {drug}."
                facts = [f"The most common adverse events with {drug} were {', '.join(i[0] for i in items[:-1])} and {items[-1][0]}.",
                         f"{cap(drug)} was generally well tolerated."]
                ideal = f"Common adverse effects of {drug} include {', '.join(i[0] for i in items[:-1])} and {items[-1][0]}."
                candidates = [list(e) for e in EFFECTS]
            else:
                tissue = rng.choice([t for t in TISSUES if sum(v == t for v in world.gene_tissue.values()) >= 2])
                items = [[g, world.gene[g][1]] for g in genes if world.gene_tissue[g] == tissue]
                key = (template, tissue[0])
                body = f"Which genes are predominantly expressed in the {tissue[0]}?"
                facts = [f"An expression atlas of {tissue[1]} identified {', '.join(i[0] for i in items[:-1])} and {items[-1][0]} as specific markers.",
                         f"The {tissue[0]} expresses a distinctive set of genes."]
                ideal = f"Genes predominantly expressed in the {tissue[0]} include {', '.join(i[0] for i in items[:-1])} and {items[-1][0]}."
                candidates = [[g, world.gene[g][1]] for g in genes]
            exact = items
        else:  # summary
            template = rng.choice(["gene", "drug", "disease"])
            if template == "gene":
                gene = rng.choice(genes)
                symbol, name, function, _ = world.gene[gene]
                key = (template, gene)
                body = f"What is the function of {gene}?"
                facts = [f"{symbol} ({name}) {function}.",
                         f"Knock-out of {symbol} in {rng.choice(MODELS)} disrupted this process in the {world.gene_tissue[gene][0]}."]
                ideal = f"{symbol} ({name}) is a protein expressed mainly in the {world.gene_tissue[gene][0]} that {function}."
            elif template == "drug":
                drug = rng.choice(drugs)
                name, code, klass = world.drug[drug]
                target = world.drug_target[drug]
                key = (template, drug)
                body = f"Describe the mechanism of action of {drug}."
                facts = [f"{cap(name)} ({code}) is a {klass} directed against {target}.",
                         f"By blocking {target}, {name} interrupts the pathway in which {target} {world.gene[target][2]}."]
                ideal = f"{cap(name)} ({code}) is a {klass} that blocks {target}, which {world.gene[target][2]}."
            else:
                dis = rng.choice(diseases)
                name, abbr, symptom = world.disease[dis]
                gs = world.disease_genes[dis]
                key = (template, dis)
                body = f"What is {dis}?"
                facts = [f"{name} ({abbr}) is a rare inherited disorder characterised by {symptom}.",
                         f"Most cases of {abbr} are caused by mutations in {gs[0]} or {gs[1]}."]
                ideal = f"{name} ({abbr}) is a rare inherited disorder characterised by {symptom}, caused by mutations in genes such as {gs[0]} and {gs[1]}."
            exact, candidates = None, []
        if key not in used:
            used.add(key)
            break
    second = {"yesno": "The evidence comes from synthetic demo studies.",
              "factoid": "This answer is supported by several synthetic demo studies.",
              "list": "Each of these is reported in at least one synthetic demo study.",
              "summary": "All of this is synthetic demo content."}[kind]
    ideals = [ideal] if rng.random() < 0.5 else [ideal, ideal.split(". ", 1)[-1].rstrip(".") + ". " + second]
    return {"type": kind, "body": body, "exact": exact, "ideal": ideals, "facts": facts, "candidates": candidates}


class Library:
    """Synthetic PubMed: ids 9xxxxxxx with a title and an abstract each."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.articles: dict[str, dict[str, str]] = {}
        self._next = 90100000 + rng.randrange(1000)

    def new_id(self) -> str:
        self._next += self.rng.randint(1, 997)
        return str(self._next)

    def filler(self) -> str:
        return self.rng.choice(FILLERS).format(n=self.rng.randint(12, 480), w=self.rng.randint(2, 52),
                                               model=self.rng.choice(MODELS), method=self.rng.choice(METHODS))

    def add(self, title: str, fact_sentences: list[str]) -> str:
        """An article whose abstract holds the fact sentences among filler sentences."""
        pmid = self.new_id()
        sentences = [self.filler() for _ in range(self.rng.randint(2, 5))]
        for fact in fact_sentences:
            sentences.insert(self.rng.randint(0, len(sentences)), fact)
        self.articles[pmid] = {"title": title, "abstract": " ".join(sentences)}
        return pmid

    def span(self, pmid: str, section: str, begin: int, end: int) -> dict:
        text = self.articles[pmid][section]
        return {"document": PUBMED + pmid, "text": text[begin:end], "offsetInBeginSection": begin,
                "offsetInEndSection": end, "beginSection": section, "endSection": section}

    def sentence_spans(self, pmid: str, sentence: str) -> dict:
        text = self.articles[pmid]["abstract"]
        begin = text.index(sentence)
        return self.span(pmid, "abstract", begin, begin + len(sentence))


def make_taskb_batch(rng: random.Random, world: World, library: Library, batch_no: int, batch: str,
                     with_concepts: bool, descriptors: list[str], used: set) -> list[dict]:
    kinds = [k for k, n in zip(("yesno", "factoid", "list", "summary"), TASKB_TYPE_COUNTS[batch]) for _ in range(n)]
    rng.shuffle(kinds)
    questions = []
    for i, kind in enumerate(kinds):
        q = make_question(kind, rng, world, used)
        q["id"] = f"{0x6a0de300 + batch_no:08x}{0xd3000 + i + 1:016x}"
        snippets, documents = [], []
        for _ in range(rng.randint(2, 7)):
            facts = rng.sample(q["facts"], rng.randint(1, len(q["facts"])))
            title_fact = rng.random() < 0.25
            title = facts[0] if title_fact else f"{cap(rng.choice(METHODS))} in {rng.choice(MODELS)}: a synthetic study of {q['body'].rstrip('?.').split(' ')[-1]}"
            pmid = library.add(title, facts[1:] if title_fact else facts)
            documents.append(PUBMED + pmid)
            if title_fact:
                snippets.append(library.span(pmid, "title", 0, len(title)))
            for fact in (facts[1:] if title_fact else facts):
                snippets.append(library.sentence_spans(pmid, fact))
        q["documents"], q["snippets"] = documents, snippets
        q["concepts"] = ([MESH_URI + d for d in rng.sample(descriptors, rng.randint(1, 4))] if with_concepts else None)
        questions.append(q)
    for _ in range(40):  # articles no question needs: the distractors of the runs
        library.add(f"A synthetic report on {rng.choice(GENES)[0]} in {rng.choice(MODELS)}", [])
    return questions


def testset_question(q: dict, phase: str) -> dict:
    """A question as the participants receive it: Phase A id, type and body; Phase B also
    the gold documents and snippets (as BioASQ's Phase B test sets)."""
    out = {"id": q["id"], "type": q["type"], "body": q["body"]}
    if phase == "phaseB":
        out["documents"], out["snippets"] = q["documents"], q["snippets"]
    return out


def taska_testset(gold: list[dict], rng: random.Random) -> list[dict]:
    """A Task A test set: the gold's PMIDs with a synthetic title and abstract, no labels
    (BioASQ's field names: pmid, title, abstractText, journal, year)."""
    documents = []
    for doc in gold:
        gene, model, method = rng.choice(GENES), rng.choice(MODELS), rng.choice(METHODS)
        title = f"{cap(method)} of {gene[0]} ({gene[1]}) in {model}"
        sentences = [f"{gene[0]} {gene[2]}."] + [
            filler.format(n=rng.randint(12, 480), w=rng.randint(2, 52), model=model, method=method)
            for filler in rng.sample(FILLERS, rng.randint(2, 4))]
        documents.append({"pmid": doc["pmid"], "title": title, "abstractText": " ".join(sentences),
                          "journal": "Journal of Synthetic Biomedicine", "year": 2026})
    return documents


def gold_question(q: dict, phase: str) -> dict:
    out = {"id": q["id"], "type": q["type"], "body": q["body"], "documents": q["documents"]}
    if q["concepts"] is not None:
        out["concepts"] = q["concepts"]
    out["snippets"] = q["snippets"]
    if phase == "phaseB":
        out["ideal_answer"] = q["ideal"]
        if q["exact"] is not None:
            out["exact_answer"] = q["exact"]
    return out


# --- Task B runs -------------------------------------------------------------------------

def phase_a_run(rng: random.Random, library: Library, questions: list[dict], spec: dict,
                descriptors: list[str], batch_pmids: list[str]) -> dict:
    q_level, out = spec["quality"], []
    for q in questions:
        if rng.random() < spec["skip"]:
            continue
        gold_docs = [d[len(PUBMED):] for d in q["documents"]]
        scored = [(rng.random() * 0.8 + q_level, d) for d in gold_docs if rng.random() < 0.35 + 0.6 * q_level]
        others = [d for d in batch_pmids if d not in gold_docs]
        scored += [(rng.random(), d) for d in rng.sample(others, 10)]
        ranked = [d for _, d in sorted(scored, key=lambda x: (-x[0], x[1]))][:10]
        snippets = []
        for s in q["snippets"]:
            pmid = s["document"][len(PUBMED):]
            if pmid not in ranked or rng.random() > 0.3 + 0.65 * q_level:
                continue
            begin, end = s["offsetInBeginSection"], s["offsetInEndSection"]
            if rng.random() > q_level:  # boundaries off by a few characters, inside the section
                size = len(library.articles[pmid][s["beginSection"]])
                begin = max(0, begin + rng.randint(-25, 25))
                end = min(size, max(begin + 10, end + rng.randint(-30, 30)))
            snippets.append((rng.random() * 0.8 + q_level, library.span(pmid, s["beginSection"], begin, end)))
        for pmid in ranked:
            if pmid not in gold_docs and rng.random() < 0.4:
                text = library.articles[pmid]["abstract"]
                begin = rng.randrange(max(1, len(text) - 60))
                snippets.append((rng.random(), library.span(pmid, "abstract", begin, min(len(text), begin + rng.randint(40, 120)))))
        snippets = [s for _, s in sorted(snippets, key=lambda x: -x[0])][:10]
        question = {"id": q["id"], "type": q["type"], "body": q["body"], "documents": [PUBMED + d for d in ranked]}
        if spec.get("snippets", True):
            question["snippets"] = snippets
        if spec.get("concepts") and q["concepts"] is not None:
            concepts = [c for c in q["concepts"] if rng.random() < 0.3 + 0.6 * q_level]
            concepts += [MESH_URI + d for d in rng.sample(descriptors, rng.randint(1, 4))]
            question["concepts"] = concepts[:10]
        out.append(question)
    return {"questions": out}


def pick_name(rng: random.Random, synonyms: list[str]) -> list[str]:
    return [synonyms[0] if len(synonyms) == 1 or rng.random() < 0.75 else rng.choice(synonyms[1:])]


def phase_b_answer(rng: random.Random, q: dict, spec: dict) -> dict:
    level, baseline = spec["quality"], spec.get("baseline", False)
    answer = {"id": q["id"], "type": q["type"], "body": q["body"]}
    kind = q["type"]
    if kind == "yesno":
        right = rng.random() < 0.45 + 0.5 * level
        answer["exact_answer"] = "yes" if baseline else (q["exact"] if right else ("no" if q["exact"] == "yes" else "yes"))
    elif kind == "factoid":
        if rng.random() < spec.get("abstain", 0.0) * (1 - level):
            pass  # abstains: no exact answer (c@1 counts it as unanswered)
        else:
            wrong = [c for c in q["candidates"] if c[0] != q["exact"][0][0]]
            ranked = [pick_name(rng, c) for c in rng.sample(wrong, 4)]
            if rng.random() < 0.25 + 0.7 * level:
                ranked.insert(0 if rng.random() < level else rng.randint(1, 4), pick_name(rng, q["exact"][0]))
            answer["exact_answer"] = ranked[:5]
    elif kind == "list":
        gold_names = {i[0] for i in q["exact"]}
        items = [pick_name(rng, i) for i in q["exact"] if rng.random() < 0.3 + 0.65 * level]
        wrong = [c for c in q["candidates"] if c[0] not in gold_names]
        items += [pick_name(rng, c) for c in rng.sample(wrong, rng.randint(0, 1 + round(3 * (1 - level))))]
        answer["exact_answer"] = items or [pick_name(rng, wrong[0])]
    if baseline:
        answer["ideal_answer"] = q["snippets"][0]["text"]
    elif rng.random() < level:
        answer["ideal_answer"] = " ".join([q["ideal"][0]] + q["facts"][1:2])
    elif rng.random() < 0.6:
        answer["ideal_answer"] = q["facts"][0]
    else:
        answer["ideal_answer"] = "Several synthetic reports have studied this question, with mixed results."
    return answer


def phase_b_run(rng: random.Random, questions: list[dict], spec: dict) -> dict:
    return {"questions": [phase_b_answer(rng, q, spec) for q in questions if rng.random() >= spec["skip"]]}


def manual_scores(rng: random.Random, gold: list[dict], runs: dict[str, dict]) -> dict:
    """Experts' 1-5 scores (means of two experts, so halves occur) of each run's ideal answers."""
    by_id = {q["id"]: q for q in gold}
    systems = {}
    for name in sorted(runs):
        scores = {}
        for answer in runs[name]["questions"]:
            ideal = answer.get("ideal_answer")
            if not ideal:
                continue
            gold_ideal = by_id[answer["id"]]["ideal"][0]
            good = 2.0 if ideal.startswith(gold_ideal) else (1.0 if ideal in by_id[answer["id"]]["facts"] else 0.0)

            def score(base: float) -> float:
                experts = [min(5, max(1, round(base + rng.choice((-1, 0, 0, 1))))) for _ in range(2)]
                return sum(experts) / 2

            scores[answer["id"]] = {"recall": score(2 + 1.3 * good), "precision": score(2.5 + good),
                                    "repetition": score(4.2), "readability": score(3.5 + 0.6 * good)}
        systems[name] = scores
    return {"systems": systems}


# --- Task A: hierarchy, gold, runs -------------------------------------------------------

def make_hierarchy(rng: random.Random) -> tuple[list[tuple[str, str]], dict[str, list[str]], list[str]]:
    """Root ``MeSH``, 12 categories, ~25 descriptors each; ~8% with a second parent."""
    edges = [("MeSH", c) for c in CATEGORIES]
    parents: dict[str, list[str]] = {}
    descriptors: list[str] = []
    ids = rng.sample(range(900000, 999999), 30 * len(CATEGORIES))
    it = iter(sorted(ids))
    for category in CATEGORIES:
        members: list[str] = []
        for _ in range(rng.randint(20, 30)):
            d = f"D{next(it)}"
            parent = category if len(members) < 3 or rng.random() < 0.15 else rng.choice(members)
            parents[d] = [parent]
            members.append(d)
        descriptors += members
    for d in descriptors:  # a second parent among earlier descriptors keeps the graph acyclic
        position = descriptors.index(d)
        if position > 30 and rng.random() < 0.08:
            other = rng.choice(descriptors[:position])
            if other not in parents[d]:
                parents[d].append(other)
    for d in descriptors:
        edges += [(p, d) for p in parents[d]]
    return edges, parents, descriptors


def taska_gold(rng: random.Random, parents: dict, descriptors: list[str], weights: list[float],
               check_tags: list[str], next_pmid) -> list[dict]:
    children: dict[str, list[str]] = {}
    for d, ps in parents.items():
        for p in ps:
            children.setdefault(p, []).append(d)
    documents = []
    for _ in range(TASKA_DOCUMENTS):
        n = rng.randint(8, 13)
        labels = set(rng.sample(check_tags, rng.randint(1, 3)))
        topic = rng.choice(descriptors)
        near = [topic] + children.get(topic, []) + [p for p in parents[topic] if p in parents]
        labels.update(rng.sample(near, min(len(near), rng.randint(1, 3))))
        while len(labels) < n:
            labels.add(rng.choices(descriptors, weights)[0])
        documents.append({"pmid": next_pmid(), "labels": sorted(labels)})
    return documents


def taska_run(rng: random.Random, gold: list[dict], spec: dict, parents: dict, descriptors: list[str],
              weights: list[float], frequent: list[str]) -> list[dict]:
    level, out = spec["quality"], []
    for doc in gold:
        if spec.get("baseline"):
            out.append({"pmid": doc["pmid"], "labels": frequent})
            continue
        if rng.random() < 0.06 * (1 - level):  # nothing passed the threshold: the fallback label
            out.append({"pmid": doc["pmid"], "labels": frequent[:1]})
            continue
        labels = []
        for label in doc["labels"]:
            if rng.random() < 0.3 + 0.65 * level:
                labels.append(label)
            elif rng.random() < 0.5 and parents.get(label):
                near = [p for p in parents[label] if p in parents]
                if near:
                    labels.append(rng.choice(near))  # a near miss: the parent
        labels += rng.choices(descriptors, weights, k=rng.randint(0, 1 + round(4 * (1 - level))))
        out.append({"pmid": doc["pmid"], "labels": sorted(set(labels)) or frequent[:1]})
    return out


# --- mcqa: reading tests, gold, runs ---------------------------------------------------------

def _choices(rng: random.Random, right: str, pool: list[str]) -> tuple[list[dict], str]:
    """Five candidates (the right one and four others of ``pool``) in random order, and the id
    of the right one."""
    others = rng.sample(sorted(set(pool) - {right}), 4)
    texts = others + [right]
    rng.shuffle(texts)
    return [{"id": str(i), "text": t} for i, t in enumerate(texts, 1)], str(texts.index(right) + 1)


def mcqa_reading_test(rng: random.Random, world: World, topic: str, subject: str, test_id: str) -> dict:
    """One reading test: a short synthetic article about ``subject`` and five questions, each
    answered by one sentence of it."""
    model, method = rng.choice(MODELS), rng.choice(METHODS)
    n, w = rng.randint(12, 480), rng.randint(3, 40)
    if topic == "genes":
        symbol, name, function, tissue = world.gene[subject]
        diseases = sorted(d for d, gs in world.disease_genes.items() if subject in gs) or ["no known disease"]
        disease = rng.choice(diseases)
        facts = [f"{symbol} ({name}) {function}.", f"It is expressed mainly in the {tissue}.",
                 f"Its role was studied in {model} using {method}.",
                 (f"Variants of {symbol} have been found in families with {disease}." if disease != "no known disease"
                  else f"No disease has yet been linked to {symbol}.")]
        asked = [(f"What is the full name of {symbol}?", name, [g[1] for g in GENES]),
                 (f"What does {symbol} do, according to the text?", function, [g[2] for g in GENES]),
                 (f"Where is {symbol} mainly expressed?", tissue, [t[0] for t in TISSUES]),
                 ("Which organisms or models were studied?", model, MODELS),
                 (f"Which disease has been linked to {symbol}?", disease,
                  [d[0] for d in DISEASES] + ["no known disease"])]
    elif topic == "drugs":
        name, code, klass = world.drug[subject]
        target = world.drug_target[subject]
        effect = rng.choice(world.drug_effects[subject])[0]
        facts = [f"{cap(name)} ({code}) is a {klass}.", f"It binds {target} and blocks its activity.",
                 f"In a trial of {n} patients the most frequent adverse effect was {effect}.",
                 f"Its pharmacology was characterised by {method}."]
        numbers = [str(n)] + [str(n + d) for d in (-7, 13, 40, 95)]
        asked = [(f"What is the development code of {name}?", code, [d[1] for d in DRUGS]),
                 (f"What kind of drug is {name}?", klass, [d[2] for d in DRUGS]),
                 (f"Which protein does {name} bind?", target, [g[0] for g in GENES]),
                 ("How many patients took part in the trial?", str(n), numbers),
                 (f"Which adverse effect was the most frequent with {name}?", effect, [e[0] for e in EFFECTS])]
    else:
        name, abbr, symptom = world.disease[subject]
        gene, drug = world.disease_genes[subject][0], world.disease_drug[subject]
        facts = [f"{name} ({abbr}) is a rare inherited disorder characterised by {symptom}.",
                 f"Most cases are caused by mutations in {gene}.", f"{cap(drug)} is approved for its treatment.",
                 f"Patients were followed for {w} weeks; a model of the disease was built in {model}."]
        asked = [(f"What is the abbreviation of {name}?", abbr, [d[1] for d in DISEASES]),
                 (f"What is the main symptom of {name}?", symptom, [d[2] for d in DISEASES]),
                 (f"Which gene is mutated in most cases of {abbr}?", gene, [g[0] for g in GENES]),
                 (f"Which drug is approved for {abbr}?", drug, [d[0] for d in DRUGS]),
                 ("In which model was the disease reproduced?", model, MODELS)]
    filler = [f.format(n=n, w=w, model=model, method=method) for f in rng.sample(FILLERS, 3)]
    rest = facts[1:] + filler
    rng.shuffle(rest)
    sentences = facts[:1] + rest  # the subject is named first
    questions = []
    for q, (text, right, pool) in enumerate(asked, 1):
        candidates, correct = _choices(rng, right, pool)
        questions.append({"id": f"{test_id}-q{q}", "question": text, "candidates": candidates, "correct": correct})
    return {"id": test_id, "document": " ".join(sentences), "questions": questions}


def mcqa_gold(rng: random.Random, world: World, batch_no: int) -> dict:
    """A batch: three topics of :data:`MCQA_TESTS_PER_TOPIC` reading tests, subjects drawn
    without repetition across batches (the rng is shared by the batches)."""
    subjects = {"genes": sorted(world.gene), "drugs": sorted(world.drug), "diseases": sorted(world.disease)}
    topics, count = [], 0
    for topic, name in MCQA_TOPICS:
        tests = []
        for subject in rng.sample(subjects[topic], MCQA_TESTS_PER_TOPIC):
            count += 1
            tests.append(mcqa_reading_test(rng, world, topic, subject, f"b{batch_no}-rt{count}"))
        topics.append({"id": topic, "name": name, "reading_tests": tests})
    return {"topics": topics}


def mcqa_testset(gold: dict) -> dict:
    """What participants receive: the gold without ``correct``."""
    return {"topics": [{**t, "reading_tests": [{**r, "questions": [{k: v for k, v in q.items() if k != "correct"}
                                                                    for q in r["questions"]]}
                                               for r in t["reading_tests"]]} for t in gold["topics"]]}


def mcqa_run(rng: random.Random, gold: dict, spec: dict, silent_topic: str | None) -> dict:
    """Answers of one system: the baseline guesses; the others know the right candidate with
    a probability that grows with their quality and, when unsure, answer a guess or (with
    ``mcqa_abstain``) leave the question unanswered, usually naming their guess."""
    level, abstain = spec["quality"], spec.get("mcqa_abstain", 0.05)
    answers = []
    for topic in gold["topics"]:
        for test in topic["reading_tests"]:
            for q in test["questions"]:
                ids = [c["id"] for c in q["candidates"]]
                guess = rng.choice(ids)
                if spec.get("baseline"):
                    answers.append({"question": q["id"], "answer": guess})
                    continue
                knows = rng.random() < 0.2 + 0.75 * level
                pick = q["correct"] if knows else guess
                if topic["id"] == silent_topic or (not knows and rng.random() < abstain * 2) or rng.random() < abstain / 4:
                    entry = {"question": q["id"], "answer": None}
                    if rng.random() < 0.7:
                        entry["candidate"] = pick
                    answers.append(entry)
                else:
                    answers.append({"question": q["id"], "answer": pick})
    return {"system": "synthetic demo run", "answers": answers}


# --- the whole demo ----------------------------------------------------------------------

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
            "It shows what a challenge looks like: three Task B batches (Phase A and Phase B), Task A "
            "with two batches of five test sets, two batches of multiple-choice reading tests (QA4MRE "
            "style, ranked by c@1), baselines, a late run and a team with too few test sets."),
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
        "[official_measures]",
        'concepts = "concepts.map"',
        'documents = "documents.map"',
        'snippets = "snippets.map"',
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


def build() -> dict[str, str]:
    """Every generated file: repository-relative path -> text."""
    rng = random.Random(SEED)
    files: dict[str, str] = {"challenge.toml": challenge_toml()}
    for team_id, team in TEAMS.items():
        files[f"teams/{team_id}.toml"] = team_toml(team)

    edges, parents, descriptors = make_hierarchy(random.Random(rng.getrandbits(64)))
    files["gold/mesh/hierarchy.txt"] = "".join(f"{p} {c}\n" for p, c in edges)

    received: dict[str, str] = {}

    def receive(path: str, window: tuple[datetime, datetime], wrng: random.Random) -> None:
        opens, closes = window
        if path == LATE_RUN:
            moment = closes + timedelta(hours=2, minutes=17)
        else:
            span = int((closes - opens).total_seconds() // 60) - 30
            moment = opens + timedelta(minutes=wrng.randint(20, span))
        received[path] = utc(moment)

    # Task B
    world = World(random.Random(rng.getrandbits(64)))
    library = Library(random.Random(rng.getrandbits(64)))
    used: set = set()
    for batch_no, (batch, opens, with_concepts) in enumerate(TASKB_BATCHES, 1):
        brng = random.Random(rng.getrandbits(64))
        first = len(library.articles)
        questions = make_taskb_batch(brng, world, library, batch_no, batch, with_concepts, descriptors, used)
        batch_pmids = list(library.articles)[first:]
        for phase in ("phaseA", "phaseB"):
            files[f"gold/taskb/{batch}/{phase}.json"] = dump_json({"questions": [gold_question(q, phase) for q in questions]})
            files[f"testsets/taskb/{batch}/{phase}.json"] = dump_json(
                {"questions": [testset_question(q, phase) for q in questions]})
        windows = taskb_windows(opens)
        phase_b_runs = {}
        for (team, system), spec in SYSTEMS.items():
            for phase in ("phaseA", "phaseB"):
                if (batch, phase) not in spec.get("taskb", []):
                    continue
                srng = random.Random(f"{SEED}/{batch}/{phase}/{team}/{system}")
                run = (phase_a_run(srng, library, questions, spec, descriptors, batch_pmids) if phase == "phaseA"
                       else phase_b_run(srng, questions, spec))
                path = f"submissions/taskB/{batch}/{phase}/{team}/{system}.json"
                files[path] = dump_json(run)
                receive(path, windows[phase], srng)
                if phase == "phaseB":
                    phase_b_runs[f"{team}/{system}"] = run
        if batch in MANUAL_BATCHES:
            files[f"gold/taskb/{batch}/manual.json"] = dump_json(manual_scores(brng, questions, phase_b_runs))

    # Task A
    arng = random.Random(rng.getrandbits(64))
    weights = [1.0 / (1 + r) ** 0.9 for r in range(len(descriptors))]
    popular = descriptors[:]
    arng.shuffle(popular)
    check_tags = popular[:6]
    pmid = [99000000 + arng.randrange(10000)]

    def next_pmid() -> int:
        pmid[0] += arng.randint(1, 400)
        return pmid[0]

    seen_labels: list[str] = []
    for batch, opens in TASKA_BATCHES:
        windows = taska_windows(opens)
        for t, testset in enumerate(windows, 1):
            gold = taska_gold(arng, parents, popular, weights, check_tags, next_pmid)
            files[f"gold/taska/{batch}/{testset}.json"] = dump_taska(gold)
            text_rng = random.Random(f"{SEED}/taskA-testset/{batch}/{testset}")  # its own stream: gold and runs unchanged
            files[f"testsets/taska/{batch}/{testset}.json"] = dump_taska(taska_testset(gold, text_rng))
            counts: dict[str, int] = {}
            for label in seen_labels or check_tags:
                counts[label] = counts.get(label, 0) + 1
            frequent = sorted(counts, key=lambda x: (-counts[x], x))[:10]
            for (team, system), spec in SYSTEMS.items():
                if (batch, t) not in spec.get("taska", []):
                    continue
                srng = random.Random(f"{SEED}/taskA/{batch}/{testset}/{team}/{system}")
                path = f"submissions/taskA/{batch}/{testset}/{team}/{system}.json"
                files[path] = dump_taska(taska_run(srng, gold, spec, parents, popular, weights, frequent))
                receive(path, windows[testset], srng)
            seen_labels += [label for doc in gold for label in doc["labels"]]

    # mcqa: own random streams, so the other files stay as they were
    mrng = random.Random(f"{SEED}/mcqa")
    for batch_no, (batch, opens) in enumerate(MCQA_BATCHES, 1):
        gold = mcqa_gold(mrng, world, batch_no)
        files[f"gold/mcqa/{batch}/gold.json"] = dump_json(gold)
        files[f"testsets/mcqa/{batch}/testset.json"] = dump_json(mcqa_testset(gold))
        for (team, system), spec in SYSTEMS.items():
            if batch not in spec.get("mcqa", []):
                continue
            srng = random.Random(f"{SEED}/mcqa/{batch}/{team}/{system}")
            silent = MCQA_SILENT_TOPIC.get((team, system), (None, None))
            path = f"submissions/mcqa/{batch}/{team}/{system}.json"
            files[path] = dump_json(mcqa_run(srng, gold, spec, silent[1] if silent[0] == batch else None))
            receive(path, mcqa_window(opens), srng)

    files["submissions/received.json"] = json.dumps(dict(sorted(received.items())), indent=1) + "\n"
    return dict(sorted(files.items()))


# --- writing and cleaning ----------------------------------------------------------------

def remove(root: Path, files: dict[str, str], *, keep_edited: bool) -> list[str]:
    """Remove the generated files under ``root`` and the directories this leaves empty.

    With ``keep_edited`` a file whose content differs from the generated one is kept;
    the kept paths are returned."""
    kept = []
    for rel, text in files.items():
        path = root / rel
        if not path.is_file() or path.is_symlink():
            continue
        if keep_edited and path.read_bytes() != text.encode("utf-8"):
            kept.append(rel)
            continue
        path.unlink()
    directories = {(root / rel).parent for rel in files}
    for directory in sorted(directories, key=lambda p: -len(p.parts)):
        while directory != root and directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()
            directory = directory.parent
    return kept


def write(root: Path, files: dict[str, str]) -> None:
    remove(root, files, keep_edited=False)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO, help="where to write (default: the repository root)")
    parser.add_argument("--clean", action="store_true", help="remove the demo files instead of writing them")
    parser.add_argument("--force", action="store_true", help="with --clean: also remove demo files edited by hand")
    args = parser.parse_args(argv)
    files = build()
    if args.clean:
        kept = remove(args.out, files, keep_edited=not args.force)
        for rel in kept:
            print(f"kept {rel}: edited since it was generated (use --force to remove it)", file=sys.stderr)
        print(f"removed the demo files from {args.out}; {len(kept)} edited file(s) kept")
        return 1 if kept else 0
    write(args.out, files)
    size = sum(len(t.encode("utf-8")) for t in files.values())
    print(f"wrote {len(files)} demo files ({size:,} bytes) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
