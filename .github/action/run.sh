#!/usr/bin/env bash
# Runs conform as the action's inputs say, and writes its exit code and the
# counts of the run as step outputs. Exits with conform's exit code, so the
# job fails when the run does (continue-on-error keeps the outputs usable),
# except that an incomplete run (3) exits 0 when INPUT_FAIL_ON_INCOMPLETE is
# false.
#   CONFORM_BIN     the binary build.sh made
#   INPUT_PROFILE   target profile; empty runs against the embedded reference host
#   INPUT_SPEC      specification pack (source, mcp-authorization)
#   INPUT_FORMATS   report formats, as conform run --format takes them
#   INPUT_TAGS      a tag expression for --tags, spaces and all
#   INPUT_ARGS      more arguments for conform run, split on white space over
#                   any number of lines (sections, --strict, --scenario ID)
#   INPUT_FAIL_ON_INCOMPLETE  true (the default) or false: whether exit 3 fails the step
#   GITHUB_OUTPUT   the file step outputs are appended to
set -uo pipefail
: "${CONFORM_BIN:?the conform binary}" "${GITHUB_OUTPUT:?the step output file}"

# Checked before the run, so that a misspelt value never decides silently.
case "${INPUT_FAIL_ON_INCOMPLETE:-true}" in
  true | false) ;;
  *)
    echo "conform action: fail-on-incomplete is \"$INPUT_FAIL_ON_INCOMPLETE\"; give true or false" >&2
    echo "exit-code=2" >>"$GITHUB_OUTPUT"
    exit 2
    ;;
esac

# The counts come from a JSON report of the run's own, whatever formats were
# asked for: the same counts conform prints at the end of the run.
counts="$(mktemp -d)/counts.json"
args=(run --spec "${INPUT_SPEC:-source}" --format "${INPUT_FORMATS:-progress},json:$counts")
if [ -n "${INPUT_PROFILE:-}" ]; then
  args+=(--profile "$INPUT_PROFILE")
fi
if [ -n "${INPUT_TAGS:-}" ]; then
  args+=(--tags "$INPUT_TAGS")
fi
extra=()
read -r -d '' -a extra <<<"${INPUT_ARGS:-}"

"$CONFORM_BIN" "${args[@]}" "${extra[@]}"
code=$?

# count NAME: a member of the report's "counts" object, one per line.
count() {
  sed -n "/\"counts\": {/,/}/s/^ *\"$1\": \([0-9]*\),\{0,1\}\$/\1/p" "$counts" 2>/dev/null | head -n 1
}
passed="$(count passed)"; failed="$(count failed)"; notrun="$(count not_run)"
harness="$(count harness_errors)"; tolerated="$(count tolerated)"
{
  echo "exit-code=$code"
  if [ -n "$passed" ]; then
    echo "tests=$((passed + failed + notrun + harness))"
    echo "passed=$passed"
    echo "failed=$failed"
    echo "tolerated=$tolerated"
    echo "not-run=$notrun"
    echo "harness-errors=$harness"
  fi
} >>"$GITHUB_OUTPUT"
if [ "$code" -eq 3 ] && [ "${INPUT_FAIL_ON_INCOMPLETE:-true}" = false ]; then
  echo "conform action: the run is incomplete (exit 3); fail-on-incomplete is false, so the step passes"
  exit 0
fi
exit "$code"
