#!/bin/sh
# Lints the generated OpenAPI document with two tools nobody here wrote: Redocly CLI
# (recommended ruleset, redocly.yaml) and Spectral (spectral:oas, .spectral.yaml). Any
# error or warning fails. The document is built from the route declarations without
# starting a server.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# At the release origin (PUBLIC_URL unset), as the compatibility check at the end compares it.
env -u PUBLIC_URL tsx test/openapi/write-document.ts "$dir/openapi.json"
# Redocly fails on errors only; its closing line counts the warnings, which fail too.
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true redocly lint "$dir/openapi.json" --config redocly.yaml --max-problems 1000 >"$dir/redocly.log" 2>&1 || { cat "$dir/redocly.log"; exit 1; }
grep -v -e '║' -e '╔' -e '╚' "$dir/redocly.log"
if grep -Eq 'You have [0-9]+ warning' "$dir/redocly.log"; then echo 'redocly: warnings are not allowed' >&2; exit 1; fi
spectral lint "$dir/openapi.json" --ruleset .spectral.yaml --fail-severity hint
# The contract as released: nothing a client of the last version relies on may break.
tsx test/openapi/check-compatible.ts "$dir/openapi.json"
