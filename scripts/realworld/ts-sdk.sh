#!/usr/bin/env bash
# Judges the TypeScript SDK's example server with OAuth (npm
# @modelcontextprotocol/sdk 1.x, examples/server/simpleStreamableHttp.js
# --oauth, with its in-memory demo authorization server) with the
# mcp-authorization pack, on loopback. Needs Node.js 20+ and npm, so
# `make test` does not run it. Extra arguments go to `conform run`
# (e.g. --format pretty). SDK_VERSION picks the SDK (default: latest 1.x);
# STRICT=1 starts the example with --oauth-strict (audience checked).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

mcp_port=${MCP_PORT:-13000}
auth_port=${MCP_AUTH_PORT:-13001}
(cd "$work" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund "@modelcontextprotocol/sdk@${SDK_VERSION:-1}" express >/dev/null)
sdk="$work/node_modules/@modelcontextprotocol/sdk"
echo "server: @modelcontextprotocol/sdk $(node -p "require('$sdk/package.json').version") simpleStreamableHttp.js --oauth${STRICT:+ --oauth-strict}"
flags="--oauth"
[ -n "${STRICT:-}" ] && flags="$flags --oauth-strict"
# exec, so that the pid cleanup kills is node's own, not a subshell's.
(cd "$work" && MCP_PORT=$mcp_port MCP_AUTH_PORT=$auth_port exec node "$sdk/dist/esm/examples/server/simpleStreamableHttp.js" $flags >"$work/server.log" 2>&1) &
pids+=($!)
wait_for "http://localhost:$mcp_port/mcp"

# The demo authorization server approves at once, redirecting to the
# redirect_uri: the approval command only has to read where it points.
cat >"$work/profile.yaml" <<PROFILE
target: http://localhost:$mcp_port/mcp
oauth:
  authorization_approval_command: "curl -s -o /dev/null -w '%{redirect_url}' {authorization_url}"
mcp_authorization:
  other_resource: http://localhost:$mcp_port/other
PROFILE
judge "$@"
