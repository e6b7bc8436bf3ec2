#!/usr/bin/env bash
# Judges a Go SDK MCP server (github.com/modelcontextprotocol/go-sdk:
# auth.RequireBearerToken, protected resource metadata from
# auth.ProtectedResourceMetadataHandler; gosdk/mcpserver) in front of
# zitadel's example OpenID provider (github.com/zitadel/oidc/v3,
# example/server, built as it is published) with the mcp-authorization pack,
# on loopback. Needs Go and curl only. Extra arguments go to `conform run`
# (e.g. --format pretty).
#
# The example provider offers no registration, so the run uses its
# pre-registered public client `native`, with the profile's redirect URI
# registered for it through REDIRECT_URI. It signs users in on a login form:
# gosdk/approve fills it as test-user@localhost (the example's user) and
# prints where the provider redirects. SCOPE picks the scope conform asks
# for (default "openid offline_access": the provider needs openid, and
# issues refresh tokens only with offline_access).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

mcp_port=${MCP_PORT:-13100}
op_port=${OP_PORT:-13101}
issuer="http://localhost:$op_port/"
redirect_uri=http://127.0.0.1:8765/callback
(cd "$here/gosdk" && go build -o "$work/mcpserver" ./mcpserver && go build -o "$work/approve" ./approve &&
	go build -o "$work/op" github.com/zitadel/oidc/v3/example/server)
echo "server: go-sdk $(cd "$here/gosdk" && go list -m -f '{{.Version}}' github.com/modelcontextprotocol/go-sdk), authorization server: zitadel/oidc $(cd "$here/gosdk" && go list -m -f '{{.Version}}' github.com/zitadel/oidc/v3) example/server"

PORT=$op_port REDIRECT_URI=$redirect_uri "$work/op" >"$work/op.log" 2>&1 &
pids+=($!)
wait_for "${issuer}.well-known/openid-configuration"
# The example provider's access tokens name the client as their audience,
# so the server introspects as that client; it advertises openid, which the
# provider demands of every authorization request.
"$work/mcpserver" -resource "http://127.0.0.1:$mcp_port/mcp" -issuer "$issuer" \
	-introspection "${issuer}oauth/introspect" -client-id native -scopes-supported openid >"$work/mcp.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$mcp_port/mcp"

cat >"$work/profile.yaml" <<PROFILE
target: http://127.0.0.1:$mcp_port/mcp
oauth:
  authorization_approval_command: "$work/approve -username test-user@localhost -password verysecure {authorization_url}"
mcp_authorization:
  client_id: native
  redirect_uri: $redirect_uri
  scope: "${SCOPE-openid offline_access}"
  other_resource: http://127.0.0.1:$mcp_port/other
PROFILE
judge "$@"
