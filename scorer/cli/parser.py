"""The argument parser of every command, and ``main``."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import NoReturn

from scorer.cli.assess import add_commands as add_assessment_commands
from scorer.cli.bioasq import IMPORT_TASKS, cmd_import_bioasq
from scorer.cli.ci import cmd_ci_check, cmd_ci_copies, cmd_ci_publish, cmd_ci_report
from scorer.cli.common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    PROBLEMS_PER_KIND,
    print_problems,
)
from scorer.cli.detect import task_name
from scorer.cli.files import cmd_normalize, cmd_validate
from scorer.cli.init import cmd_init
from scorer.cli.leaderboard import MAX_SHARDS, cmd_build, cmd_score_all, cmd_serve, shard_arg
from scorer.cli.score import cmd_score
from scorer.cli.sealing import cmd_keygen, cmd_seal
from scorer.core.errors import Problem, ScorerError
from scorer.evaluation import EDITIONS, FLAVORS
from scorer.fingerprint import version
from scorer.formats.jsontext import DEFAULT_MAX_BYTES

DESCRIPTION = """\
Score BioASQ-style runs exactly as the official BioASQ tools do (flavor "official") or
by the published definitions (flavor "reference"), and check run files before you
submit them.

Typical dry run before a submission (the task is read from the file; --task checks it):
  python -m scorer validate my_run.json
  python -m scorer normalize my_run.json fixed_run.json   # if told so
  python -m scorer score --gold gold.json fixed_run.json [more runs ...]
"""


CHALLENGE_HELP = ("check a run against the per-question limits ([limits]) of this challenge repository (default: "
                  "the current folder if it has challenge.toml, else BioASQ's: 10 documents, snippets, concepts and "
                  "triples per question, 5 factoid and 100 list answers); a run at its path there also gets the "
                  "pull-request check's verdict on its content (its test set's ids included)")


TASK_HELP = ("phaseA, phaseB (BioASQ Task B phases; Phase A+ runs are phaseB files), taskA (MeSH indexing), synergy "
             "(a BioASQ Synergy round) or mcqa (multiple-choice reading tests), "
             "in any case; default: from the file's path in a challenge repository, else its shape (the output "
             "says which); a --task the file contradicts is an error")


def program_name() -> str:
    """How the command line was started: the console script's name (``bioasq-scorer``), else
    ``python -m scorer``."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return "python -m scorer" if name in ("", "__main__.py", "-c", "-m") or name.startswith("python") else name


class JsonUsageParser(argparse.ArgumentParser):
    """argparse's parser for a command line that asked for ``--format json``: a usage
    error is also a JSON object on standard output (``{"error": "usage", "problems":
    [...]}``), so a script reading the output always gets JSON; the usage and the message
    still go to standard error, and the exit status is 2 as for every usage error.  Its
    subcommands' parsers are of this class too (argparse's default)."""

    def error(self, message: str) -> NoReturn:
        problem = Problem(code="usage", message=message, fix=f"run: {self.prog} --help")
        print(json.dumps({"error": "usage", "problems": [problem.to_dict()]}, indent=2))
        super().error(message)


def asks_json(argv: list[str]) -> bool:
    """True when ``argv`` holds ``--format json`` (or ``--format=json``)."""
    return "--format=json" in argv or any(a == "--format" and b == "json" for a, b in zip(argv, argv[1:]))


def add_setup_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``init`` and ``import-bioasq``: a new challenge repository and its batches."""
    p = sub.add_parser("init", help="write a new challenge repository (no demo; participant docs only)",
                       description="Write a skeleton challenge repository into DIR: a commented challenge.toml "
                                   "with BioASQ's defaults, teams/ with an example, the three workflows, the lock "
                                   "files, the scorer and its site templates, the pages for participants and a "
                                   "README with the GitHub settings to make. Then add batches with import-bioasq.")
    p.add_argument("dir", metavar="DIR", help="the new repository's folder (created; must be absent or empty)")
    p.set_defaults(handler=cmd_init)

    p = sub.add_parser("import-bioasq", help="BioASQ's files of a batch -> testsets/, gold/ and challenge.toml",
                       description="Turn BioASQ's official files of one batch (Task B: the test sets of Phase A and "
                                   "Phase B and the golden file; Synergy: a round's question file and gold) into "
                                   "the batch's testsets/ and gold/, and add the batch with its windows to "
                                   "challenge.toml (--window). A test set not given is derived from the golden file "
                                   "unless the repository has it. Everything is checked before anything is written.")
    p.add_argument("--repo", default=".", help="the challenge repository (default: the current folder)")
    p.add_argument("--task", choices=IMPORT_TASKS, default=IMPORT_TASKS[0], help=f"default {IMPORT_TASKS[0]}")
    p.add_argument("--batch", required=True, metavar="ID", help="the batch (Synergy: round) id, e.g. batch1")
    p.add_argument("--name", help="its display name in challenge.toml, e.g. \"Batch 1\" (default: the id)")
    p.add_argument("--testset", action="append", default=[], metavar="[PHASE=]FILE",
                   help="a test set as BioASQ handed it out: phaseA=FILE, phaseB=FILE (Task B); FILE (Synergy)")
    p.add_argument("--golden", metavar="FILE", help="BioASQ's golden file of the batch (the gold of every phase)")
    p.add_argument("--final", action="store_true",
                   help="the golden file is final: the experts' gold after their assessment of the systems' "
                        "answers, as BioASQ publishes it after a challenge (boards then say 'final'; default: "
                        "preliminary, the gold as it is when the window closes)")
    p.add_argument("--seal", action="store_true",
                   help="seal the golden file to the challenge's key (gold/.../<phase>.json.age; implied where "
                        "[gold] sealed names the task): only the publish job opens it")
    p.add_argument("--window", action="append", default=[], metavar="[PHASE=]OPENS/CLOSES",
                   help="a submission window in UTC, e.g. phaseA=2026-03-02T10:00:00Z/2026-03-03T10:00:00Z "
                        "(Task B: phaseA, phaseB, optionally phaseAplus, which may be 'true': the Phase A window; "
                        "Synergy: no PHASE=)")
    p.set_defaults(handler=cmd_import_bioasq)


def build_parser(json_errors: bool = False) -> argparse.ArgumentParser:
    parser_class = JsonUsageParser if json_errors else argparse.ArgumentParser
    parser = parser_class(prog=program_name(), description=DESCRIPTION,
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"scorer {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def common(p: argparse.ArgumentParser, with_task: bool = True) -> None:
        if with_task:
            p.add_argument("--task", type=task_name, metavar="TASK", help=TASK_HELP)
        p.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                       help=f"refuse files larger than this (default {DEFAULT_MAX_BYTES:,})")

    p = sub.add_parser("validate", help="check a run (or gold) file and list every problem with its fix",
                       description="List every problem of a file at once: file:line:column, JSON pointer, "
                                   "question id and a one-line fix. Exit 0 if valid, 1 if not.")
    p.add_argument("file", help="the JSON file to check")
    common(p)
    p.add_argument("--role", choices=("run", "gold"), default="run", help="check as a run (default) or a gold file")
    p.add_argument("--gold", help="also compare the run's question ids with this gold file")
    p.add_argument("--hierarchy", help="Task A: also warn about labels that are not in this hierarchy file "
                                       "(PARENT CHILD per line)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--challenge", metavar="DIR", help=CHALLENGE_HELP)
    p.add_argument("--all", action="store_true",
                   help=f"list every problem (default: at most {PROBLEMS_PER_KIND} of each kind)")
    p.set_defaults(handler=cmd_validate)

    p = sub.add_parser("normalize", help="write a copy of a run with the documented fixes applied",
                       description="Apply the fixes that validate names (snake_case snippet keys, list-valued "
                                   "sections, extra snippet keys, numbers as strings, ...) and write OUT.")
    p.add_argument("input", help="the run to fix")
    p.add_argument("output", help="where to write the fixed run")
    common(p)
    p.add_argument("--gold", help="the gold file the run is scored against: a document it writes as it is stays as "
                                  "the run writes it (it matches as written; default: the gold of the run's batch "
                                  "and phase, when the run is at its path in a challenge and the gold is out)")
    p.add_argument("--challenge", metavar="DIR", help="the challenge repository the run is in (default: the current "
                                                      "folder if it has challenge.toml)")
    p.set_defaults(handler=cmd_normalize)

    p = sub.add_parser("score", help="score runs against gold and print the measures",
                       description="Score each RUN against GOLD with the numbers of the official tools (or the "
                                   "published definitions: --flavor reference). A run the official evaluator can "
                                   "read is scored as it reads it; problems that would make the pull-request "
                                   "check reject it are printed (--strict refuses such a run, exit 1). A gold "
                                   "file that does not fit the run (another batch, a test set, swapped files) "
                                   "is an error. Every output names the run and the gold.")
    p.add_argument("run", nargs="+", help="the run file(s)")
    p.add_argument("--gold", required=True, help="the gold file")
    common(p)
    p.add_argument("--edition", type=int, choices=EDITIONS, default=9,
                   help="BioASQ rules: 2 (BioASQ 1-2), 3 (3-4), 5 (5-7), 8 (8), 9 (9 and later; default)")
    p.add_argument("--flavor", choices=FLAVORS, default="official",
                   help="official = the official tools' numbers (default); reference = the published definitions")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table",
                   help="table for reading (default), json (NaN as null, with per-question values; one object per "
                        "run, a list of them for several runs) or csv (long form: run,gold,task,measure,value)")
    p.add_argument("--hierarchy", help="Task A: the MeSH hierarchy file (PARENT CHILD per line)")
    p.add_argument("--manual", metavar="FILE",
                   help="Phase B: the experts' scores of ideal answers (taskb-manual-scores.schema.json)")
    p.add_argument("--system", metavar="ID", help="Phase B: the run's system id in the --manual file")
    p.add_argument("--judged", metavar="GOLD", action="append", default=[],
                   help="Synergy: the gold (feedback) file of an earlier round (repeat for each); what it judged is "
                        "not scored again, as the leaderboard does with [synergy] exclude_judged = true")
    p.add_argument("--challenge", metavar="DIR", help=CHALLENGE_HELP)
    p.add_argument("--strict", action="store_true",
                   help="refuse a run the pull-request check would refuse (exit 1): in a challenge, its verdict "
                        "on the run at its path; elsewhere, a run with errors")
    p.add_argument("--all", action="store_true",
                   help=f"list every problem (default: at most {PROBLEMS_PER_KIND} of each kind)")
    p.set_defaults(handler=cmd_score)

    p = sub.add_parser("score-all", help="score every run of a challenge repository into results/",
                       description="Validate and score every run under submissions/ that has gold, and write "
                                   "results/ (see docs/results.md). Incremental: only runs whose file, gold, "
                                   "rules or scorer (its source or locked dependencies) changed are rescored. "
                                   "Exit 1 if any run failed. Sharded (docs/organizers.md): --shard K/N "
                                   "scores only shard K's runs; a plain score-all on the union of the shards' "
                                   "results/runs/ reuses them all and writes the tables.")
    p.add_argument("--repo", default=".", help="the challenge repository (default: the current folder)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="processes for scoring runs (default: the number of CPUs)")
    only = p.add_mutually_exclusive_group()
    only.add_argument("--shard", type=shard_arg, metavar="K/N",
                      help="score only the runs of shard K of N (a stable split by run path, balanced by size) and "
                           "write only their result (or error) files: no batch table, no index, nothing removed; "
                           "exit 0 once they are written (the merging score-all reports failed runs)")
    only.add_argument("--plan-shards", action="store_true",
                      help="print the shards publish.yml scores in, as a JSON list 1..N ([] when at most "
                           f"[limits] shard_runs runs need scoring; at most {MAX_SHARDS} shards); scores nothing")
    p.add_argument("--reuse-only", action="store_true",
                   help="score nothing: list the runs that need scoring and exit 1 when any, else 0 (failed runs "
                        "included); when none, the tables and index are written as score-all does (with --shard: "
                        "only the shard's runs are looked at and no table is written)")
    p.set_defaults(handler=cmd_score_all)

    p = sub.add_parser("build", help="score what changed, then render the leaderboard site",
                       description="Bring results/ up to date (score-all, incremental: cheap when nothing "
                                   "changed; --no-score skips it), then render site_templates/ and docs/ with "
                                   "the results into a static site. The build is deterministic: window status "
                                   "and the footer use the commit date of HEAD, never the clock, so two builds "
                                   "of one commit are byte-identical. Open OUT/index.html or run serve.")
    p.add_argument("--repo", default=".", help="the challenge repository (default: the current folder)")
    p.add_argument("--out", help="the site folder (default: REPO/_site); replaced if it holds a previous build")
    p.add_argument("--no-score", action="store_true", help="use results/ as it is, do not run score-all first")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="processes for scoring runs and rendering pages (default: the number of CPUs)")
    p.add_argument("--templates", help="Jinja2 templates (default: REPO/site_templates, else the scorer's)")
    p.add_argument("--docs", help="Markdown pages (default: REPO/docs, else the scorer's)")
    p.set_defaults(handler=cmd_build)

    p = sub.add_parser("serve", help="preview the built site on http://127.0.0.1 (local only)",
                       description="Serve the built site folder over HTTP on the loopback interface only.")
    p.add_argument("--repo", default=".", help="the challenge repository (default: the current folder)")
    p.add_argument("--out", help="the site folder (default: REPO/_site)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.set_defaults(handler=cmd_serve)

    add_setup_commands(sub)

    p = sub.add_parser("keygen", help="organizers: a new key pair for sealed runs",
                       description="Write a new private key (Ed25519, OpenSSH form) to IDENTITY, readable by you "
                                   "only, and print the [submissions] lines of challenge.toml that publish its "
                                   "public key. Store the private key as the secret SEALING_KEY of the publish "
                                   "environment (docs/organizers.md, 'Sealed runs').")
    p.add_argument("--identity", required=True, metavar="FILE",
                   help="where to write the private key (a new file, outside the repository)")
    p.add_argument("--label", default="challenge-sealing", help="a label after the public key (default: %(default)s)")
    p.set_defaults(handler=cmd_keygen)

    p = sub.add_parser("seal", help="validate a run against the challenge's test set, then seal it for submission",
                       description="Validate RUN (at its run path in your clone of the challenge) as the "
                                   "pull-request check does, against the test set of its batch and phase; refuse "
                                   "an invalid run with its located errors; else write it sealed to the "
                                   "challenge's public key at RUN.age, the file your pull request adds "
                                   "(docs/submit.md, 'Sealed runs').")
    p.add_argument("run", help="the run, at submissions/<task>/<batch>/[<phase>/]<team>/<system>.json")
    p.add_argument("--repo", default=".", help="your clone of the challenge repository (default: here)")
    p.add_argument("--out", help="where to write the sealed run (default: RUN.age)")
    p.set_defaults(handler=cmd_seal)

    ci = sub.add_parser("ci", help="the pull-request workflow's commands (check, ...)",
                        description="Commands run by the GitHub workflows; see docs/pull-requests.md.")
    ci_sub = ci.add_subparsers(dest="ci_command", metavar="CI_COMMAND")
    ci_sub.required = True
    p = ci_sub.add_parser(
        "check", help="decide whether a pull request's changes are acceptable submissions",
        description="Look only at what the pull request changes (git diff BASE...HEAD, read from Git objects; "
                    "nothing is checked out or run) and decide on each change: a pull request may only add or "
                    "replace runs of a team the actor is a member of, for a registered system, while the window "
                    "is open. Runs are validated, their ids compared with the test set, and scored when gold "
                    "exists (a dry run). challenge.toml, teams/, test sets and gold are read from BASE. "
                    "Exit 0 if every change is accepted, 1 if not, 2 for usage errors.")
    p.add_argument("--base", required=True, help="the branch the pull request targets (a ref or commit)")
    p.add_argument("--head", required=True, help="the pull request's head (a ref or commit)")
    p.add_argument("--repo", default=".", help="the challenge repository (default: the current folder)")
    p.add_argument("--actor", help="the GitHub login that submits (default: the event's pull_request.user.login, "
                                   "else $GITHUB_ACTOR)")
    p.add_argument("--event", metavar="FILE", help="the GitHub event payload (default: $GITHUB_EVENT_PATH); its "
                                                   "pull_request.updated_at is the time the windows are checked at")
    p.add_argument("--now", metavar="TIME", help="for tests and organizers: check the windows at this UTC time "
                                                 "(2026-03-02T10:00:00Z) instead of the event's time")
    p.add_argument("--report", metavar="FILE.json", help="write the JSON report here (and the Markdown summary "
                                                         "next to it as FILE.md unless --summary is given)")
    p.add_argument("--summary", metavar="FILE.md", help="write the Markdown summary (the pull-request comment) here")
    p.set_defaults(handler=cmd_ci_check)

    p = ci_sub.add_parser(
        "report", help="judge the open pull requests of a commit again through the GitHub API, comment, set its status",
        description="For the workflow_run reporter: judge every open pull request whose head is SHA again, each "
                    "against the rules of BRANCH for its own author, from files read by commit id through the REST "
                    "API (nothing is checked out or run); update one comment on each pull request and set the "
                    "commit status leaderboard/check: success when any pull request into BRANCH is accepted. The "
                    "token comes from $GITHUB_TOKEN. See docs/pull-requests.md.")
    p.add_argument("--repository", required=True, metavar="OWNER/NAME", help="the challenge repository")
    p.add_argument("--sha", required=True, help="the head commit the check ran on (workflow_run.head_sha)")
    p.add_argument("--branch", help="the protected branch the leaderboard publishes from, whose rules judge every "
                                    "pull request (default: the repository's default branch)")
    p.add_argument("--time", required=True, metavar="TIME",
                   help="the server-side UTC time of this check run (workflow_run.created_at): the windows are "
                        "checked when each pull request's head became the commit (GitHub's records); this time stands "
                        "for a pull request's opening when GitHub gives none")
    p.add_argument("--time-source", default="the time GitHub started the check, workflow_run.created_at",
                   help="where --time comes from (shown in the comment)")
    p.add_argument("--run-url", help="the link of the commit status (the reporter's run)")
    p.add_argument("--api-url", default=os.environ.get("GITHUB_API_URL", "https://api.github.com"),
                   help="the REST API (default: $GITHUB_API_URL, else https://api.github.com)")
    p.add_argument("--bot-login", default="github-actions[bot]",
                   help="the account whose marked comment is updated (default github-actions[bot])")
    p.add_argument("--report", metavar="FILE.json", help="also write the JSON report here")
    p.set_defaults(handler=cmd_ci_report)

    p = ci_sub.add_parser(
        "publish", help="score the tip of the branch and push results/ (retrying when others push first)",
        description="Fetch BRANCH, record when new runs arrived (submissions/received.json: when the merged pull "
                    "request's head became its head commit, from its check runs and events read through the API "
                    "with $API_TOKEN or $GITHUB_TOKEN; else the commit's committer time), run score-all, "
                    "commit results/ and push without force. When the push is refused because another publisher "
                    "pushed first, start again from the new tip (see scorer/pr/publish.py). The clone must be clean; "
                    "it is moved to the remote tip.")
    p.add_argument("--repo", default=".", help="a clean clone of the challenge repository (default: here)")
    p.add_argument("--remote", default="origin", help="the remote to fetch from and push to (default origin)")
    p.add_argument("--branch", default="main", help="the branch to publish (default main)")
    p.add_argument("--attempts", type=int, default=5, help="pushes to try before giving up (default 5)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="processes for scoring runs (default: the number of CPUs)")
    p.add_argument("--shard-results", metavar="DIR",
                   help="result files of shard jobs (score-all --shard; laid out as results/runs/), copied into "
                        "results/runs/ before score-all, which reuses each only where its provenance matches")
    p.add_argument("--repository", default=os.environ.get("GITHUB_REPOSITORY"), metavar="OWNER/NAME",
                   help="where the check runs are read (default: $GITHUB_REPOSITORY; none: commit times are used)")
    p.add_argument("--api-url", default=os.environ.get("GITHUB_API_URL", "https://api.github.com"),
                   help="the REST API (default: $GITHUB_API_URL, else https://api.github.com)")
    p.set_defaults(handler=cmd_ci_publish)

    p = ci_sub.add_parser(
        "copies", help="the organizers' view of copied runs: runs identical or nearly identical to an earlier one",
        description="Compare every run under submissions/ with the other teams' earlier runs of its batch phase "
                    "(earlier: by submissions/received.json) and list each run that is identical after canonical "
                    "JSON or at least [rules] copy_similarity similar (mean per-question Jaccard of documents, "
                    "snippets and answers; see docs/pull-requests.md, \"Copied runs\"), both runs named. "
                    "Exit 0 if none, 1 if any is flagged or challenge.toml is invalid.")
    p.add_argument("--repo", default=".", help="the challenge repository (default: the current folder)")
    p.add_argument("--report", metavar="FILE.json", help="also write the flagged pairs here as JSON")
    p.set_defaults(handler=cmd_ci_copies)

    add_assessment_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(json_errors=asks_json(argv))
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except ScorerError as exc:
        print_problems(exc.problems, per_code=PROBLEMS_PER_KIND)
        return EXIT_INVALID
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:  # a path, port or permission the user gave: no bug of the scorer
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"error: {exc.strerror or exc}{where}\n    fix: check the path (its folder must exist) and that you "
              "may read or write it", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # a bug: say so plainly, without a traceback
        print(f"internal error in the scorer: {type(exc).__name__}: {exc}\n"
              "This is a bug; please report it with the command and input files.", file=sys.stderr)
        return EXIT_INVALID
