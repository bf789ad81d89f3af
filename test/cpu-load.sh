#!/bin/sh
# Runs a command while two busy loops hold the CPU (one per core of the usual two-core
# machine), then stops them: a check that a suite is steady when the machine is busy.
#   sh test/cpu-load.sh npx playwright test
#   CPU_LOAD_LOOPS=4 CPU_LOAD_MAX_SECONDS=600 sh test/cpu-load.sh npm run test:e2e
# The loops stop when the command ends, on Ctrl-C, and in any case after
# CPU_LOAD_MAX_SECONDS (default 3600), so none outlives a killed run by long.
# Exits with the command's status.
set -u
[ $# -gt 0 ] || { echo 'usage: sh test/cpu-load.sh <command> [args…]' >&2; exit 64; }
loops=${CPU_LOAD_LOOPS:-2}
max=${CPU_LOAD_MAX_SECONDS:-3600}
pids=''
stop() {
  # timeout passes the TERM on to its loop.
  [ -n "$pids" ] && kill $pids 2>/dev/null
  wait 2>/dev/null
}
trap 'stop; exit 130' INT TERM
i=0
while [ "$i" -lt "$loops" ]; do
  timeout "$max" sh -c 'while :; do :; done' &
  pids="$pids $!"
  i=$((i + 1))
done
echo "cpu-load: $loops busy loops (pids$pids), at most ${max} s" >&2
status=0
"$@" || status=$?
stop
exit "$status"
