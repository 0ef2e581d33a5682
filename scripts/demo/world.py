"""The made-up biomedicine of the demo: vocabulary (genes, drugs, diseases, tissues, adverse
effects, models, methods, filler sentences, MeSH-like categories) and :class:`World`, the
facts linking them, drawn once from the seed."""
from __future__ import annotations

import random

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
