#!/usr/bin/env bash
# Builds GoFakeS3 (a small S3-compatible server: buckets and objects on the file system, one process)
# with the local Go toolchain and puts the binary at $(go env GOPATH)/bin/gofakes3, or at the path
# given as the first argument. The test harness starts it as the S3 store of the tests
# (test/support/s3-server.ts).
#
# SeaweedFS (`weed mini`, the compose stack's S3 service) was the first choice, but building `weed`
# from the Go module proxy did not finish within an hour on two shared cores: too long for CI.
# GoFakeS3 builds in under a minute. It checks no signatures: any access key is accepted.
set -euo pipefail

version="v1.2.0"
command -v go >/dev/null 2>&1 || { echo "install-gofakes3: Go is not installed (https://go.dev/dl/)" >&2; exit 1; }
target="${1:-$(go env GOPATH)/bin/gofakes3}"
stamp="$target.version"

if [ -x "$target" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
  echo "install-gofakes3: $target is already GoFakeS3 $version"
  exit 0
fi

echo "install-gofakes3: building GoFakeS3 $version with $(go version | cut -d' ' -f3) (one time, under a minute)..."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$target")"
GOBIN="$work" go install -trimpath "github.com/johannesboyne/gofakes3/cmd/gofakes3@$version"
mv "$work/gofakes3" "$target"
echo "$version" >"$stamp"
echo "install-gofakes3: installed GoFakeS3 $version at $target"
