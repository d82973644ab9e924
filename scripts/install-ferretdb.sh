#!/usr/bin/env bash
# Builds FerretDB 1.24 (a MongoDB-compatible server; the embedded database runs it on PostgreSQL, or
# on SQLite when PostgreSQL cannot start) with the local Go toolchain and puts the binary at
# $(go env GOPATH)/bin/ferretdb, or at the path given as the first argument.
#
# `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2` is the documented way, but the
# module zip ships without build/version/version.txt, and a binary built from it panics at start.
# So the module is downloaded, copied, given its version file, and built.
set -euo pipefail

version="v1.24.2"
command -v go >/dev/null 2>&1 || { echo "install-ferretdb: Go is not installed (https://go.dev/dl/)" >&2; exit 1; }
target="${1:-$(go env GOPATH)/bin/ferretdb}"

if [ -x "$target" ] && "$target" --version 2>/dev/null | grep -q "version: $version"; then
  echo "install-ferretdb: $target is already FerretDB $version"
  exit 0
fi

echo "install-ferretdb: building FerretDB $version with $(go version | cut -d' ' -f3) (one time, about two minutes)..."
module_dir="$(go mod download -json "github.com/FerretDB/FerretDB@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[ -d "$module_dir" ] || { echo "install-ferretdb: could not download the FerretDB module" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$module_dir/." "$work/"
chmod -R u+w "$work"
echo "$version" > "$work/build/version/version.txt"
mkdir -p "$(dirname "$target")"
(cd "$work" && GOFLAGS=-mod=mod go build -trimpath -o "$target" ./cmd/ferretdb)
echo "install-ferretdb: installed $("$target" --version | head -n1) at $target"
