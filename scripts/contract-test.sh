#!/usr/bin/env bash
# Contract fuzzing: runs Schemathesis (every check, positive and negative data) against the built
# service on a throwaway embedded database, authenticated as an admin. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

schemathesis="${SCHEMATHESIS:-.venv/bin/schemathesis}"
[ -x "$schemathesis" ] || { echo "contract-test: Schemathesis not found; run: python3 -m venv .venv && .venv/bin/pip install -r requirements-dev.txt" >&2; exit 1; }
[ -f dist/main.js ] || npx nest build

port="${CONTRACT_PORT:-3456}"
data_dir="$(mktemp -d)"
report_dir="test-artifacts/schemathesis"
mkdir -p "$report_dir"
log="$report_dir/service.log"

PORT="$port" HOST=127.0.0.1 DATA_DIR="$data_dir" NODE_ENV=test LOG_LEVEL=warn \
  JWT_SECRET="contract-test-secret-0123456789abcdef0123456789" BCRYPT_ROUNDS=4 \
  CARD_FINGERPRINT_KEY="contract-test-card-fingerprint-key-0123456789" \
  FIELD_ENCRYPTION_KEY="c1:$(printf '%032d' 0 | base64)" \
  LOGIN_MAX_FAILURES=100000 LOGIN_MAX_FAILURES_PER_CLIENT=100000 SIGNUP_MAX_PER_CLIENT=100000 MONGODB_URI= node dist/main.js >"$log" 2>&1 &
service=$!
cleanup() {
  kill -TERM "$service" 2>/dev/null || true
  wait "$service" 2>/dev/null || true
  rm -rf "$data_dir"
}
trap cleanup EXIT

base="http://127.0.0.1:$port"
for _ in $(seq 1 120); do
  curl -fsS "$base/health" >/dev/null 2>&1 && break
  kill -0 "$service" 2>/dev/null || { echo "contract-test: the service exited; its log:" >&2; cat "$log" >&2; exit 1; }
  sleep 0.5
done
curl -fsS "$base/health" >/dev/null

email="contract-admin@example.com"
password="contract-test-password"
curl -fsS -X POST "$base/api/v1/singup" -H 'content-type: application/json' \
  -d "{\"firstName\":\"Contract\",\"lastName\":\"Admin\",\"email\":\"$email\",\"password\":\"$password\",\"role\":\"admin\"}" >/dev/null
token="$(curl -fsS -X POST "$base/api/v1/login" -H 'content-type: application/json' \
  -d "{\"email\":\"$email\",\"password\":\"$password\"}" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).accessToken))')"

echo "contract-test: Schemathesis $("$schemathesis" --version | awk '{print $NF}') against $base/docs-json"
"$schemathesis" run "$base/docs-json" \
  --url "$base" \
  --header "Authorization: Bearer $token" \
  --checks all \
  --mode all \
  --max-examples "${CONTRACT_MAX_EXAMPLES:-25}" \
  --workers 2 \
  --seed "${CONTRACT_SEED:-20261122}" \
  --generation-database none \
  --request-timeout 10 \
  --report junit \
  --report-dir "$report_dir" \
  --no-color \
  "$@"
