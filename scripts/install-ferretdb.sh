#!/usr/bin/env bash
# Builds FerretDB v1.24.2 (a MongoDB-compatible server; the embedded database runs it on PostgreSQL,
# or on SQLite when PostgreSQL cannot start) with the local Go toolchain and our patches in
# deploy/ferretdb/, applied in name order: atomic-writes.patch (guarded writes atomic, as MongoDB's
# are) and filter-pushdown.patch (ranges and lists of ids and a field's existence answered by
# PostgreSQL, not by decoding the whole table), and puts the binary
# at $(go env GOPATH)/bin/ferretdb, or at the path given as the first argument. A binary already
# there without the patch is replaced.
#
# `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2` is the documented way, but the
# module zip ships without build/version/version.txt, and a binary built from it panics at start.
# So the module is downloaded, copied, patched, given its version files, and built.
set -euo pipefail

version="v1.24.2"
# The mark the patched build carries in `ferretdb --version` (build/version/package.txt); the service
# and the tests use no FerretDB without it. Change it with any patch.
mark="platform-patches-3"
if [ -n "${FERRETDB_VERSION:-}" ] && [ "$FERRETDB_VERSION" != "$version" ]; then
  echo "install-ferretdb: the patches are written for FerretDB $version only, not $FERRETDB_VERSION" >&2
  exit 1
fi
command -v go >/dev/null 2>&1 || { echo "install-ferretdb: Go is not installed (https://go.dev/dl/)" >&2; exit 1; }
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:-$(go env GOPATH)/bin/ferretdb}"

if [ -x "$target" ] && "$target" --version 2>/dev/null | grep -q "^version: $version$" &&
  "$target" --version 2>/dev/null | grep -q "^package: $mark$"; then
  echo "install-ferretdb: $target is already FerretDB $version with $mark"
  exit 0
fi
[ -e "$target" ] && echo "install-ferretdb: $target is not FerretDB $version with $mark: replacing it"

echo "install-ferretdb: building FerretDB $version with $(go version | cut -d' ' -f3) and $mark (one time, about two minutes)..."
module_dir="$(go mod download -json "github.com/FerretDB/FerretDB@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[ -d "$module_dir" ] || { echo "install-ferretdb: could not download the FerretDB module" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$module_dir/." "$work/"
chmod -R u+w "$work"
for patch_file in "$root"/deploy/ferretdb/*.patch; do
  (cd "$work" && git apply "$patch_file")
done
echo "$version" > "$work/build/version/version.txt"
echo "$mark" > "$work/build/version/package.txt"
mkdir -p "$(dirname "$target")"
# Built beside the target, then moved over it: a FerretDB running from the old binary keeps running.
(cd "$work" && GOFLAGS=-mod=mod go build -trimpath -o "$target.new" ./cmd/ferretdb)
mv -f "$target.new" "$target"
echo "install-ferretdb: installed $("$target" --version | head -n1) ($mark) at $target"
