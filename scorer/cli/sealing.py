"""The commands of sealed runs (see ``docs/submit.md`` and ``docs/organizers.md``, "Sealed runs"):

``keygen``  the organizers' key pair: the private key to a new file (only the owner may
            read it), the recipient line for ``[submissions]`` of ``challenge.toml`` printed;
``seal``    a participant's run, validated against the challenge's test set as the
            pull-request check validates it, then sealed to the challenge's recipient and
            written at the run's path + ``.age``.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from scorer.cli.common import EXIT_INVALID, EXIT_OK, EXIT_USAGE, PROBLEMS_PER_KIND, print_problems
from scorer.core.paths import run_ref
from scorer.core.tasks import TASKS, run_path_forms
from scorer.formats.challenge import load_challenge
from scorer.formats.sealed import generate_key_pair, seal


def cmd_keygen(args: argparse.Namespace) -> int:
    """Write a new private key to ``args.identity`` (refusing to overwrite a file), mode
    0600, and print the ``[submissions]`` lines that publish its recipient."""
    pair = generate_key_pair(args.label)
    path = Path(args.identity)
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        print(f"error: {path} exists\n    fix: choose a new file: a key is never overwritten (the runs sealed to it "
              "could no longer be opened)", file=sys.stderr)
        return EXIT_USAGE
    with os.fdopen(handle, "w", encoding="ascii") as out:
        out.write(pair.identity)
    print(f"# the private key is in {path}: store it as the secret SEALING_KEY of the publish environment,\n"
          "# keep a copy offline, and never commit it (docs/organizers.md, 'Sealed runs').\n"
          "# Put these lines in challenge.toml:\n"
          "[submissions]\n"
          "sealed = true\n"
          f'recipient = "{pair.recipient}"')
    return EXIT_OK


def cmd_seal(args: argparse.Namespace) -> int:
    """Validate run ``args.run`` of the challenge at ``args.repo`` (its path there says which
    task, batch and phase it answers), then write it sealed beside it (``<run>.age``)."""
    from scorer.pr.verdict import folder_verdict
    repo = Path(args.repo).resolve()
    run = Path(args.run).resolve()
    try:
        relative = run.relative_to(repo).as_posix()
    except ValueError:
        relative = ""
    ref = run_ref(relative)
    if ref is None:
        print(f"error: {args.run} is not at a run's path in the challenge repository {args.repo}\n"
              f"    fix: put it at {run_path_forms()} in your clone of the challenge, then seal it there",
              file=sys.stderr)
        return EXIT_USAGE
    challenge = load_challenge(repo)
    if not challenge.is_sealed(ref.task):
        print(f"error: runs of {TASKS[ref.task].name} are not sealed in this challenge\n"
              f"    fix: submit {ref.path} itself", file=sys.stderr)
        return EXIT_USAGE
    if challenge.recipient is None:
        print(f"error: runs of {TASKS[ref.task].name} are sealed, but challenge.toml publishes no key "
              "([submissions] recipient)\n    fix: ask the organizers to publish it (python -m scorer keygen)",
              file=sys.stderr)
        return EXIT_USAGE
    data = run.read_bytes()
    verdict = folder_verdict(repo, ref, data, challenge)
    print_problems([p for p in verdict.problems if p.severity == "error"], per_code=PROBLEMS_PER_KIND)
    print("\n".join(verdict.lines()), file=sys.stderr if verdict.reasons else sys.stdout)
    if not verdict.accepted:
        print(f"not sealed: the pull-request check would refuse {ref.path} once opened; fix it and seal it again",
              file=sys.stderr)
        return EXIT_INVALID
    target = Path(args.out) if args.out else repo / ref.sealed_path
    target.write_bytes(seal(data, challenge.recipient))
    print(f"sealed: {target}\n"
          f"add {ref.sealed_path} to your pull request, and not {ref.path}: the run itself would be public "
          "(the check refuses it)")
    return EXIT_OK
