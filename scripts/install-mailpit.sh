#!/usr/bin/env bash
# Builds Mailpit (an SMTP server that keeps every mail it receives and shows them through an HTTP
# API) with the local Go toolchain and puts the binary at $(go env GOPATH)/bin/mailpit, or at the
# path given as the first argument. The tests send their mail to it and read it back through its API.
#
# The module as published holds the server and its API, not the compiled web UI (server/ui/dist is
# built with npm in Mailpit's own release process): the API works, the browser UI at / answers 404.
# The compose stack runs Mailpit's published image, which has the UI.
set -euo pipefail

version="v1.33.1"
command -v go >/dev/null 2>&1 || { echo "install-mailpit: Go is not installed (https://go.dev/dl/)" >&2; exit 1; }
target="${1:-$(go env GOPATH)/bin/mailpit}"

if [ -x "$target" ] && "$target" version --no-release-check 2>/dev/null | grep -q "$version"; then
  echo "install-mailpit: $target is already Mailpit $version"
  exit 0
fi

echo "install-mailpit: building Mailpit $version with $(go version | cut -d' ' -f3) (one time, about three minutes)..."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$target")"
GOBIN="$work" go install -trimpath -ldflags "-s -w -X github.com/axllent/mailpit/config.Version=$version" "github.com/axllent/mailpit@$version"
mv "$work/mailpit" "$target"
echo "install-mailpit: installed $("$target" version --no-release-check | head -n1) at $target"
