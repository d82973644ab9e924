#!/usr/bin/env bash
# Contract fuzzing: runs Schemathesis (every check, positive and negative data) against the built
# service on a throwaway embedded database, authenticated as an admin. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

schemathesis="${SCHEMATHESIS:-.venv/bin/schemathesis}"
[ -x "$schemathesis" ] || { echo "contract-test: Schemathesis not found; run: python3 -m venv .venv && .venv/bin/pip install -r requirements-dev.txt" >&2; exit 1; }
report_dir="test-artifacts/schemathesis"
mkdir -p "$report_dir"
source scripts/test-service.sh
start_test_service "${CONTRACT_PORT:-3456}" "$report_dir/service.log"
token="$(admin_token contract-admin@example.com contract-test-password)"
# Records of every kind for the phases to find; scripts/contract_hooks.py seeds again when the
# stateful phase starts.
node scripts/contract-seed.mjs "$base" "$token" >/dev/null
export CONTRACT_BASE_URL="$base" CONTRACT_TOKEN="$token"

echo "contract-test: Schemathesis $("$schemathesis" --version | awk '{print $NF}') against $base/docs-json"
"$schemathesis" run "$base/docs-json" \
  --url "$base" \
  --header "Authorization: Bearer $token" \
  --checks all \
  --mode all \
  ${CONTRACT_MAX_EXAMPLES:+--max-examples "$CONTRACT_MAX_EXAMPLES"} \
  --workers 1 \
  --seed "${CONTRACT_SEED:-20261122}" \
  --generation-database none \
  --request-timeout 10 \
  --report junit \
  --report-dir "$report_dir" \
  --no-color \
  "$@" | tee "$report_dir/output.txt"

# Operations whose valid requests only ever met 404, named in the summary above: the seeded records
# and the links are there so that the phases reach real records. How many is reported, not gated: the
# stateful phase is a random walk (with the same records, this seed left 2 and seed 7 left 7).
missing="$(grep -oE 'Missing test data: [0-9]+ operation' "$report_dir/output.txt" | grep -oE '[0-9]+' | head -1 || true)"
echo "contract-test: ${missing:-0} operations repeatedly answered 404 (seed ${CONTRACT_SEED:-20261122})"
