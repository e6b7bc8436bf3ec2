#!/usr/bin/env bash
# Runs conform as the action's inputs say, and writes its exit code and the
# counts of the run as step outputs. Exits with conform's exit code, so the
# job fails when the run does (continue-on-error keeps the outputs usable).
#   CONFORM_BIN     the binary build.sh made
#   INPUT_PROFILE   target profile; empty runs against the embedded reference host
#   INPUT_SPEC      specification pack (source, mcp-authorization)
#   INPUT_FORMATS   report formats, as conform run --format takes them
#   INPUT_ARGS      more arguments for conform run, split on spaces (sections, --tags, --strict)
#   GITHUB_OUTPUT   the file step outputs are appended to
set -uo pipefail
: "${CONFORM_BIN:?the conform binary}" "${GITHUB_OUTPUT:?the step output file}"

# The counts come from a JUnit report of the run's own, whatever formats
# were asked for: its totals are attributes of <testsuites>.
counts="$(mktemp -d)/counts.xml"
args=(run --spec "${INPUT_SPEC:-source}" --format "${INPUT_FORMATS:-progress},junit:$counts")
if [ -n "${INPUT_PROFILE:-}" ]; then
  args+=(--profile "$INPUT_PROFILE")
fi
read -r -a extra <<<"${INPUT_ARGS:-}"

"$CONFORM_BIN" "${args[@]}" "${extra[@]}"
code=$?

attr() {
  sed -n "s/.*<testsuites[^>]* $1=\"\([0-9]*\)\".*/\1/p" "$counts" 2>/dev/null | head -n 1
}
tests="$(attr tests)"; failures="$(attr failures)"; errors="$(attr errors)"; skipped="$(attr skipped)"
{
  echo "exit-code=$code"
  if [ -n "$tests" ]; then
    echo "tests=$tests"
    echo "passed=$((tests - failures - errors - skipped))"
    echo "failed=$failures"
    echo "not-run=$skipped"
    echo "harness-errors=$errors"
  fi
} >>"$GITHUB_OUTPUT"
exit "$code"
