# Sourced by the scripts that test the built service from outside (contract fuzzing, the SDK check):
# start_test_service <port> <log> starts dist/main.js on a throwaway embedded database with test
# secrets and waits for /health; it sets $base and stops the service (and removes its data) on exit.
# admin_token <email> <password> signs up an admin, verifies their email and prints a fresh access token.
# Without SMTP_URL the service writes its mails to $test_service_data/mail (scripts/mail-token.mjs reads them).

start_test_service() {
  local port=$1 log=$2
  test_service_log=$log
  [ -f dist/main.js ] || npx nest build
  test_service_data="$(mktemp -d)"
  PORT="$port" HOST=127.0.0.1 DATA_DIR="$test_service_data" NODE_ENV=test LOG_LEVEL=warn \
    JWT_SECRET="contract-test-secret-0123456789abcdef0123456789" BCRYPT_ROUNDS=4 \
    CARD_FINGERPRINT_KEY="contract-test-card-fingerprint-key-0123456789" \
    FIELD_ENCRYPTION_KEY="c1:$(printf '%032d' 0 | base64)" \
    LOGIN_MAX_FAILURES=100000 LOGIN_MAX_FAILURES_PER_CLIENT=100000 PASSKEY_OPTIONS_MAX_PER_CLIENT=100000 SIGNUP_MAX_PER_CLIENT=100000 RATE_LIMIT_PER_SECOND=0 WEBHOOK_ALLOW_PRIVATE_URLS=true MONGODB_URI= node dist/main.js >"$log" 2>&1 &
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

# A stop that is not clean (a non-zero exit, or still running 60 s after SIGTERM, when it and its
# database processes are killed) fails the script that sourced this, with the log's last lines.
stop_test_service() {
  local status=$? code=0
  kill -TERM "$test_service_pid" 2>/dev/null || true
  for _ in $(seq 1 120); do
    kill -0 "$test_service_pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$test_service_pid" 2>/dev/null; then
    echo "test service: still running 60 s after SIGTERM; killing it and its database processes" >&2
    pkill -KILL -P "$test_service_pid" 2>/dev/null || true
    kill -KILL "$test_service_pid" 2>/dev/null || true
    code=1
  fi
  wait "$test_service_pid" 2>/dev/null || code=$?
  if [ "$code" -ne 0 ]; then
    echo "test service: its stop was not clean (exit $code); the last lines of $test_service_log:" >&2
    tail -n 20 "$test_service_log" >&2 || true
    for database_log in "$test_service_data"/postgres.log "$test_service_data"/*/ferretdb.log; do
      [ -f "$database_log" ] || continue
      echo "test service: the last lines of its database's ${database_log#"$test_service_data"/}:" >&2
      tail -n 20 "$database_log" >&2 || true
    done
    [ "$status" -ne 0 ] || status=1
  fi
  rm -rf "$test_service_data"
  exit "$status"
}

admin_token() {
  local email=$1 password=$2
  curl -fsS -X POST "$base/api/v1/singup" -H 'content-type: application/json' \
    -d "{\"firstName\":\"Contract\",\"lastName\":\"Admin\",\"email\":\"$email\",\"password\":\"$password\",\"role\":\"admin\"}" >/dev/null
  # Unverified users can neither invite nor move money: the link mailed at signup (a file here) is followed.
  curl -fsS -X POST "$base/api/v1/email-verifications/$(node scripts/mail-token.mjs "$test_service_data/mail" "$email" /verify-email)" >/dev/null
  curl -fsS -X POST "$base/api/v1/login" -H 'content-type: application/json' \
    -d "{\"email\":\"$email\",\"password\":\"$password\"}" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).accessToken))'
}
