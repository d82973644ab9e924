# Sourced by the scripts that test the built service from outside (contract fuzzing, the SDK check):
# start_test_service <port> <log> starts dist/main.js on a throwaway embedded database with test
# secrets and waits for /health; it sets $base and stops the service (and removes its data) on exit.
# admin_token <email> <password> signs up an admin and prints a fresh access token.

start_test_service() {
  local port=$1 log=$2
  [ -f dist/main.js ] || npx nest build
  test_service_data="$(mktemp -d)"
  PORT="$port" HOST=127.0.0.1 DATA_DIR="$test_service_data" NODE_ENV=test LOG_LEVEL=warn \
    JWT_SECRET="contract-test-secret-0123456789abcdef0123456789" BCRYPT_ROUNDS=4 \
    CARD_FINGERPRINT_KEY="contract-test-card-fingerprint-key-0123456789" \
    FIELD_ENCRYPTION_KEY="c1:$(printf '%032d' 0 | base64)" \
    LOGIN_MAX_FAILURES=100000 LOGIN_MAX_FAILURES_PER_CLIENT=100000 SIGNUP_MAX_PER_CLIENT=100000 RATE_LIMIT_PER_SECOND=0 WEBHOOK_ALLOW_PRIVATE_URLS=true MONGODB_URI= node dist/main.js >"$log" 2>&1 &
  test_service_pid=$!
  trap stop_test_service EXIT

  base="http://127.0.0.1:$port"
  for _ in $(seq 1 120); do
    curl -fsS "$base/health" >/dev/null 2>&1 && break
    kill -0 "$test_service_pid" 2>/dev/null || { echo "the service exited; its log:" >&2; cat "$log" >&2; exit 1; }
    sleep 0.5
  done
  curl -fsS "$base/health" >/dev/null
}

stop_test_service() {
  kill -TERM "$test_service_pid" 2>/dev/null || true
  wait "$test_service_pid" 2>/dev/null || true
  rm -rf "$test_service_data"
}

admin_token() {
  local email=$1 password=$2
  curl -fsS -X POST "$base/api/v1/singup" -H 'content-type: application/json' \
    -d "{\"firstName\":\"Contract\",\"lastName\":\"Admin\",\"email\":\"$email\",\"password\":\"$password\",\"role\":\"admin\"}" >/dev/null
  curl -fsS -X POST "$base/api/v1/login" -H 'content-type: application/json' \
    -d "{\"email\":\"$email\",\"password\":\"$password\"}" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).accessToken))'
}
