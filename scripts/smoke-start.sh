#!/usr/bin/env bash
# Starts the service as a newcomer would (`npm start`, embedded PGlite), checks it answers,
# then stops it with SIGTERM and expects a clean exit.
set -euo pipefail
dir=$(mktemp -d)
port=${SMOKE_PORT:-4477}
log="$dir/start.log"
SOUK_DATA_DIR="$dir/data" PORT=$port npm start >"$log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
for _ in $(seq 1 120); do
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "npm start exited early"; exit 1; }
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$port/readyz"; echo
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/v1/users/auth/signup" \
  -H 'content-type: application/json' -d '{"email":"smoke@example.com","password":"smoke-password","name":"Smoke"}')
[ "$code" = 201 ] || { cat "$log"; echo "signup answered $code"; exit 1; }
# A second process on the same data dir must be refused.
if SOUK_DATA_DIR="$dir/data" PORT=$((port + 1)) timeout 60 npm start >"$dir/second.log" 2>&1; then
  echo "a second process on the same data dir was not refused"; exit 1
fi
grep -q "in use by another Souk process" "$dir/second.log" || { cat "$dir/second.log"; exit 1; }
# npm does not forward signals reliably: signal the node process itself.
node_pid=$(pgrep -P "$pid" -f 'scripts/start.mjs|src/main.ts' || true)
for child in $(pgrep -P "$pid" || true); do node_pid="$node_pid $(pgrep -P "$child" || true)"; done
kill -TERM $pid $node_pid 2>/dev/null || true
for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
if kill -0 "$pid" 2>/dev/null; then echo "npm start did not stop on SIGTERM"; exit 1; fi
echo "smoke test of npm start passed"
