"""Task B questions drawn from the :class:`~demo.world.World`: body, exact and ideal answers,
the fact sentences the snippets are made of, and candidate answers for the runs."""
from __future__ import annotations

import random

from .world import EFFECTS, METHODS, MODELS, TISSUES, World, cap


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
