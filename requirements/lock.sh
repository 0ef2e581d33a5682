#!/usr/bin/env bash
# Regenerate the hash-pinned lock files from pyproject.toml and requirements/build.in
# (needs uv: `python -m pip install uv`).  Existing pins are kept unless a requirement
# changed; `requirements/lock.sh --upgrade` moves every pin to the newest release.
# One resolution for every Python from 3.11 up (the CI machine and the workflows' 3.12)
# and every platform, with the hashes of all wheels and the sdist of each pinned version.
set -euo pipefail
cd "$(dirname "$0")/.."
compile() {
    uv pip compile --universal --python-version 3.11 --generate-hashes --quiet \
        --custom-compile-command "requirements/lock.sh" "$@"
}
compile pyproject.toml requirements/build.in -o requirements/publish.lock "$@"
compile pyproject.toml requirements/build.in --extra test -o requirements/ci.lock "$@"
