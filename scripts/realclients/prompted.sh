#!/usr/bin/env bash
# prompted.sh PROMPT LINE... -- COMMAND [ARG...]
# Runs COMMAND, an interactive client, and types each LINE at it once it has
# printed PROMPT one more time than before: a line piped in before the
# client asks for it is lost (node's readline drops a line no question is
# waiting for). Exits with COMMAND's status; when COMMAND exits before
# asking, the lines left are not typed.
set -uo pipefail
prompt=$1
shift
lines=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do lines+=("$1"); shift; done
[ $# -gt 0 ] && shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/in"
"$@" <"$dir/in" > >(tee "$dir/out") &
pid=$!
exec 3>"$dir/in"
n=0
for line in "${lines[@]}"; do
	n=$((n + 1))
	until [ "$(grep -o -F -- "$prompt" "$dir/out" 2>/dev/null | wc -l)" -ge "$n" ]; do
		kill -0 "$pid" 2>/dev/null || break 2
		sleep 0.1
	done
	printf '%s\n' "$line" >&3
done
exec 3>&-
wait "$pid"
