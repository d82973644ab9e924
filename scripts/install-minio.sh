#!/usr/bin/env bash
# Builds MinIO (the S3 server most self-hosters run; it checks every request's signature) with the
# local Go toolchain and puts the binary at $(go env GOPATH)/bin/minio, or at the path given as the
# first argument. The test harness starts it as the S3 store of the tests (test/support/s3-server.ts),
# the same server as the compose stack's `minio` service.
#
# MinIO publishes its source only: the Go module proxy has it as a pseudo-version of its repository,
# pinned here. The build takes about 7 minutes on two shared cores, once; a stamp beside the binary
# says which version it is.
set -euo pipefail

version="v0.0.0-20260212201848-7aac2a2c5b7c"
command -v go >/dev/null 2>&1 || { echo "install-minio: Go is not installed (https://go.dev/dl/)" >&2; exit 1; }
target="${1:-$(go env GOPATH)/bin/minio}"
stamp="$target.version"

if [ -x "$target" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
  echo "install-minio: $target is already MinIO $version"
  exit 0
fi

echo "install-minio: building MinIO $version with $(go version | cut -d' ' -f3) (one time, about 7 minutes)..."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$target")"
GOBIN="$work" GOFLAGS=-mod=mod go install -trimpath "github.com/minio/minio@$version"
mv "$work/minio" "$target"
echo "$version" >"$stamp"
echo "install-minio: installed MinIO $version at $target"
