#!/usr/bin/env bash
# Judges a Go SDK MCP server (github.com/modelcontextprotocol/go-sdk:
# auth.RequireBearerToken, protected resource metadata from
# auth.ProtectedResourceMetadataHandler; gosdk/mcpserver) in front of panva's
# oidc-provider (npm oidc-provider, set up by oidc-provider/provider.mjs:
# registration, PKCE, resource indicators, introspection, and an interaction
# that approves at once) with the mcp-authorization pack, on loopback. Needs
# Node.js 20+, npm, curl and Go, so `make test` does not run it. Extra
# arguments go to `conform run` (e.g. --format pretty).
# OIDC_PROVIDER_VERSION picks the provider (default: latest 9.x).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

mcp_port=${MCP_PORT:-13200}
op_port=${OP_PORT:-13201}
issuer="http://localhost:$op_port"
resource="http://127.0.0.1:$mcp_port/mcp"
other="http://127.0.0.1:$mcp_port/other"
scope=mcp:tools
secret=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
(cd "$here/gosdk" && go build -o "$work/mcpserver" ./mcpserver && go build -o "$work/approve" ./approve)
(cd "$work" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund "oidc-provider@${OIDC_PROVIDER_VERSION:-9}" >/dev/null)
cp "$here/oidc-provider/provider.mjs" "$work/"
echo "server: go-sdk $(cd "$here/gosdk" && go list -m -f '{{.Version}}' github.com/modelcontextprotocol/go-sdk), authorization server: oidc-provider $(node -p "require('$work/node_modules/oidc-provider/package.json').version")"

# exec, so that the pid cleanup kills is node's own, not a subshell's.
(cd "$work" && ISSUER=$issuer PORT=$op_port RESOURCE=$resource OTHER_RESOURCE=$other SCOPE=$scope INTROSPECTION_SECRET=$secret \
	exec node provider.mjs >"$work/op.log" 2>&1) &
pids+=($!)
wait_for "$issuer/.well-known/openid-configuration"
# The provider names the resource as the audience of its tokens, so the
# server checks that it is the audience (MCP authorization, Token Handling).
"$work/mcpserver" -resource "$resource" -issuer "$issuer" -introspection "$issuer/token/introspection" \
	-client-id mcp-server -client-secret "$secret" -audience "$resource" -scopes-supported "$scope" >"$work/mcp.log" 2>&1 &
pids+=($!)
wait_for "$resource"

# The interaction approves at once, so the approval command only follows
# the provider's redirects to the redirect_uri.
cat >"$work/profile.yaml" <<PROFILE
target: $resource
oauth:
  authorization_approval_command: "$work/approve {authorization_url}"
mcp_authorization:
  other_resource: $other
PROFILE
judge "$@"
