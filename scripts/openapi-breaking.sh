#!/usr/bin/env bash
# Fails when openapi.json breaks a client of the previous commit's document, unless CHANGELOG.md
# lists the change under its "API changes" heading. oasdiff decides what is breaking; each line of
# that section is an accepted change in oasdiff's ignore form: the method, the path and the words of
# oasdiff's message, e.g.
#   - POST /api/v1/platform/projects/{id}/keys the `expiresAt` request property `type` changed from `object` to `string`
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
# The section from its heading to the next heading of level 1 or 2.
awk '/^##+ API changes/ { on = 1; next } on && /^#{1,2} / { on = 0 } on' CHANGELOG.md >"$work/accepted.txt"

echo "openapi-breaking: openapi.json against $base_ref ($(git rev-parse --short "$base_ref"))"
if "$oasdiff" breaking "$work/base.json" openapi.json --fail-on ERR --err-ignore "$work/accepted.txt" --color never; then
  echo "openapi-breaking: no unlisted breaking change"
else
  echo "openapi-breaking: a breaking change above is not listed in CHANGELOG.md under \"API changes\"" >&2
  exit 1
fi
