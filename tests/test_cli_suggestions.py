"""Every command the scorer suggests exists: the ``run: python -m scorer ...`` lines the
CLI prints parse with its own argument parser and, run, do not suggest themselves again;
every other mention of ``python -m scorer <command> --option`` (in ``fix:`` lines, in the
source, the templates and the docs) names an existing command and options of it."""
from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil

import pytest

from scorer.cli import build_parser
from tests.conftest import ROOT
from tests.test_cli_mistakes import GOLD_A, GOLD_B, GOLD_B2, IN_REPO_A, IN_REPO_B, TASKA_RUN, TESTSET_A, run_cli

MENTION = re.compile(r"python -m scorer ([^;\n`\"')<]*)")
RUN_LINE = re.compile(r"^\s*run: python -m scorer (.*?)(?:\s{2,}\(.*)?$", re.MULTILINE)


def subcommands(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, argparse.ArgumentParser]:
    """"validate" -> its parser, "ci check" -> its parser, ... for every (nested) subcommand."""
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[prefix + name] = sub
                found.update(subcommands(sub, prefix + name + " "))
    return found


COMMANDS = subcommands(build_parser())


def mention_problems(text: str) -> list[str]:
    """What is wrong with each ``python -m scorer ...`` mention in ``text``: an unknown
    command, or an option its command does not have."""
    wrong = []
    for mention in MENTION.findall(text):
        words = mention.split()
        name = " ".join(words[:2]) if " ".join(words[:2]) in COMMANDS else words[0] if words else ""
        if name not in COMMANDS:
            if words and words[0] not in ("--help", "--version", "COMMAND", "<command>", "..."):
                wrong.append(f"unknown command in: python -m scorer {mention}")
            continue
        options = COMMANDS[name]._option_string_actions
        for word in words:
            option = word.split("=")[0].rstrip(".,:")
            if option.startswith("--") and option not in options:
                wrong.append(f"{name} has no option {option}: python -m scorer {mention}")
    return wrong


@pytest.fixture
def scenarios(tmp_path):
    """(argv, stdout + stderr) of commands that print advice: runs needing normalize, a
    gold file as a run, Task A, a wrong gold, a missing site, a busy-port-free serve."""
    phase_a = tmp_path / "phaseA-run.json"
    run = json.loads(IN_REPO_A.read_text())
    for q in run["questions"]:
        q["documents"] = [d.replace("http://www.ncbi.nlm.nih.gov/pubmed/", "") for d in q["documents"]]
    phase_a.write_text(json.dumps(run))
    phase_b = tmp_path / "phaseB run.json"  # a space, to be quoted
    run = json.loads(IN_REPO_B.read_text())
    for q in run["questions"]:
        if q.get("type") == "list" and "exact_answer" in q:
            q["exact_answer"] = [synonyms[0] for synonyms in q["exact_answer"]]  # flat: a documented variant
    phase_b.write_text(json.dumps(run))
    task_a = tmp_path / "taska.json"
    shutil.copy(TASKA_RUN, task_a)
    commands = [
        ["validate", phase_a], ["validate", phase_b], ["score", "--gold", GOLD_A, phase_a],
        ["score", "--gold", GOLD_A, phase_a, "--strict"], ["score", "--gold", GOLD_B, phase_b],
        ["validate", GOLD_B], ["normalize", task_a, tmp_path / "out.json"],
        ["score", "--gold", GOLD_B2, IN_REPO_B], ["score", "--gold", GOLD_A, TESTSET_A],
        ["serve", "--out", tmp_path / "no-site"], ["validate", IN_REPO_A, "--task", "phaseB"],
    ]
    return [(argv, "".join(run_cli(argv)[1:])) for argv in commands]


def test_every_printed_command_parses_and_does_not_loop(scenarios, tmp_path):
    parser = build_parser()
    suggested = 0
    for argv, output in scenarios:
        for line in RUN_LINE.findall(output):
            suggested += 1
            words = [tmp_path / "FIXED.json" if w == "FIXED.json" else w for w in shlex.split(line)]
            parser.parse_args([str(w) for w in words])  # SystemExit(2) for a command that does not exist
            if words[0] in ("serve", "build"):
                continue  # long-running or whole-site commands: parsing is the check
            again = "".join(run_cli(words)[1:])
            assert f"run: python -m scorer {line}" not in again, (argv, line)
    assert suggested >= 5  # normalize (validate, score, --strict), validate (Task A), build (serve)


def test_normalize_as_suggested_makes_the_run_valid(scenarios, tmp_path):
    for _, output in scenarios:
        for line in RUN_LINE.findall(output):
            words = shlex.split(line)
            if words[0] != "normalize":
                continue
            fixed = tmp_path / "FIXED.json"
            assert run_cli([tmp_path / "FIXED.json" if w == "FIXED.json" else w for w in words])[0] == 0, line
            assert run_cli(["validate", fixed])[0] == 0, line


def test_every_fix_line_names_existing_commands_and_options(scenarios):
    wrong = [w for _, output in scenarios for w in mention_problems(output)]
    assert wrong == []


@pytest.mark.parametrize("folder", ["scorer", "site_templates", "docs"])
def test_every_mention_in_the_sources_and_docs_exists(folder):
    files = [p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".html", ".md")]
    wrong = [f"{p.relative_to(ROOT)}: {w}" for p in files for w in mention_problems(p.read_text(encoding="utf-8"))]
    assert wrong == []


def test_the_check_finds_a_command_or_option_that_does_not_exist():
    assert mention_problems("run: python -m scorer score --gold g.json --all r.json") == []
    assert mention_problems("fix: python -m scorer rank --by f1") == ["unknown command in: python -m scorer rank "
                                                                      "--by f1"]
    assert mention_problems("python -m scorer ci check --bogus") == [
        "ci check has no option --bogus: python -m scorer ci check --bogus"]


def test_the_pull_request_check_suggests_normalize_only_where_it_fixes_something():
    from scorer.core.errors import Problem
    from scorer.core.paths import RunRef
    from scorer.pr.policy import _content_reasons
    variant = Problem(code="flat-answer-list", message="a documented variant", fixed_by="normalize")
    by_hand = Problem(code="wrong-type", message="fixed by hand only")
    taskb = RunRef("taskB", "batch1", "phaseB", "team", "system")
    taska = RunRef("taskA", "batch1", "week1", "team", "system")
    fixes = {(ref.task, problem.code): _content_reasons(ref, [problem])[0].fix
             for ref in (taskb, taska) for problem in (variant, by_hand)}
    path = "submissions/taskB/batch1/phaseB/team/system.json"
    assert f"run: python -m scorer normalize {path} {path} fixes every one" in fixes["taskB", "flat-answer-list"]
    assert [f for key, f in fixes.items() if key != ("taskB", "flat-answer-list") and "normalize" in f] == []
    assert all(mention_problems(f) == [] for f in fixes.values())
