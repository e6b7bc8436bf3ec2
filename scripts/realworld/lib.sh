# Sourced by the scripts here: a work directory with conform built into it,
# the servers each script starts stopped when it ends, and a wait for a
# server to answer. Expects `set -euo pipefail` and $here set by the caller.
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
(cd "$root" && go build -o "$work/conform" ./cmd/conform)

# wait_for URL: until something answers there, ten seconds at most.
wait_for() {
	for _ in $(seq 50); do curl -s -o /dev/null "$1" && return 0; sleep 0.2; done
	echo "nothing answers at $1" >&2
	return 1
}

# judge ARGS...: runs the pack with $work/profile.yaml and exits with its code.
judge() {
	status=0
	"$work/conform" run --spec mcp-authorization --profile "$work/profile.yaml" "$@" || status=$?
	exit $status
}
