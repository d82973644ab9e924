#!/usr/bin/env bash
# Generates client SDKs from openapi.json with mainstream generators at their default settings, and
# proves them: a Python SDK (openapi-python-client, from PyPI) runs a short real flow against the
# built service, and a TypeScript SDK (@hey-api/openapi-ts, from npm) type-checks under strict tsc.
# Output under test-artifacts/sdk. Exits non-zero if a generator refuses the document or a check fails.
set -euo pipefail
cd "$(dirname "$0")/.."

out="test-artifacts/sdk"
rm -rf "$out"
mkdir -p "$out"

generator="${OPENAPI_PYTHON_CLIENT:-.venv/bin/openapi-python-client}"
[ -x "$generator" ] || { echo "sdk-check: openapi-python-client not found; run: python3 -m venv .venv && .venv/bin/pip install -r requirements-dev.txt" >&2; exit 1; }

echo "sdk-check: TypeScript SDK (@hey-api/openapi-ts $(npx openapi-ts --version 2>/dev/null | tail -n 1))"
npx openapi-ts --input openapi.json --output "$out/typescript/src"
cat >"$out/typescript/tsconfig.json" <<'JSON'
{ "compilerOptions": { "strict": true, "noEmit": true, "target": "ES2022", "module": "ESNext", "moduleResolution": "Bundler", "lib": ["ES2022", "DOM"], "skipLibCheck": false }, "include": ["src"] }
JSON
npx tsc -p "$out/typescript/tsconfig.json"
echo "sdk-check: the TypeScript SDK type-checks"

echo "sdk-check: Python SDK ($("$generator" --version))"
# Its post-generation formatter (ruff) comes with it in the virtual environment.
(cd "$out" && PATH="$(cd ../.. && pwd)/.venv/bin:$PATH" "$(cd ../.. && pwd)/$generator" generate --path ../../openapi.json --output-path python)

source scripts/test-service.sh
start_test_service "${SDK_PORT:-3457}" "$out/service.log"
SDK_BASE_URL="$base" SDK_MAIL_DIR="$test_service_data/mail" PYTHONPATH="$out/python" .venv/bin/python scripts/sdk/python_flow.py
