#!/usr/bin/env bash
# Fails when openapi.json breaks a client of the previous commit's document, unless CHANGELOG.md
# lists the change under its "API changes" heading (see scripts/openapi-breaking.mjs for the form).
# oasdiff decides what is breaking (its ERR level).
# Usage: scripts/openapi-breaking.sh [base-git-ref] (default HEAD~1; OASDIFF names the binary).
set -euo pipefail
cd "$(dirname "$0")/.."

base_ref="${1:-HEAD~1}"
oasdiff="${OASDIFF:-$(go env GOPATH 2>/dev/null)/bin/oasdiff}"
[ -x "$oasdiff" ] || { echo "openapi-breaking: oasdiff not found at $oasdiff (go install github.com/oasdiff/oasdiff@v1.36.0)" >&2; exit 1; }

if ! git rev-parse -q --verify "$base_ref^{commit}" >/dev/null || ! git cat-file -e "$base_ref:openapi.json" 2>/dev/null; then
  echo "openapi-breaking: $base_ref has no openapi.json; nothing to compare"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git show "$base_ref:openapi.json" >"$work/base.json"
echo "openapi-breaking: openapi.json against $base_ref ($(git rev-parse --short "$base_ref"))"
"$oasdiff" breaking "$work/base.json" openapi.json --format json >"$work/changes.json"
node scripts/openapi-breaking.mjs CHANGELOG.md <"$work/changes.json"
