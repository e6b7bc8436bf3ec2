#!/usr/bin/env bash
# Judges a Go SDK MCP server (github.com/modelcontextprotocol/go-sdk:
# auth.RequireBearerToken, protected resource metadata from
# auth.ProtectedResourceMetadataHandler; gosdk/mcpserver) in front of ORY
# Hydra (github.com/ory/hydra/v2, `hydra serve all --dev`, its database in
# memory, dynamic client registration on) with the mcp-authorization pack,
# on loopback. Needs Go (with cgo: Hydra's in-memory database is SQLite)
# and curl. Extra arguments go to `conform run` (e.g. --format pretty).
# HYDRA_VERSION picks the release (default v2.3.0). PKCE_ENFORCED=1 turns on
# Hydra's oauth2.pkce.enforced_for_public_clients (off by default).
# CONFIDENTIAL=1 judges, instead of the public client the run registers, a
# confidential client the script registers at Hydra's registration endpoint
# first, with the token_endpoint_auth_method CONFIDENTIAL_METHOD (default
# client_secret_basic), which the profile names: the rules for confidential
# clients run, those for public clients alone do not.
#
# The scenarios run one at a time (--concurrency 1): Hydra's in-memory
# database refuses concurrent writes ("Unable to serialize access due to a
# concurrent update in another session"), which would fail flows at random.
#
# Hydra is built in a module of its own in the work directory, with the
# replace directives of Hydra's own go.mod that a dependency's go.mod cannot
# carry; the first build takes many minutes (GOFLAGS=-p=1 is kinder to a
# shared machine), later ones hit the build cache. Hydra hands sign-in and
# consent to an app of the deployer's: gosdk/hydraconsent accepts every
# login as one subject and grants every consent what was asked, through
# Hydra's admin API, and gosdk/approve follows the flow through it. The
# server checks tokens at Hydra's admin introspection endpoint, which asks
# no client authentication (it is meant for the deployer's network only).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

version=${HYDRA_VERSION:-v2.3.0}
mcp_port=${MCP_PORT:-13300}
public_port=${HYDRA_PUBLIC_PORT:-13301}
admin_port=${HYDRA_ADMIN_PORT:-13302}
app_port=${CONSENT_PORT:-13303}
issuer="http://127.0.0.1:$public_port"
admin="http://127.0.0.1:$admin_port"
app="http://127.0.0.1:$app_port"
resource="http://127.0.0.1:$mcp_port/mcp"

(cd "$here/gosdk" && go build -o "$work/mcpserver" ./mcpserver && go build -o "$work/approve" ./approve &&
	go build -o "$work/hydraconsent" ./hydraconsent)
mkdir "$work/hydra-build"
(
	cd "$work/hydra-build"
	go mod init conform-realworld-hydra >/dev/null 2>&1
	gomod=$(go mod download -json "github.com/ory/hydra/v2@$version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
	# Hydra's go.mod replaces modules its build needs replaced; those that
	# point into its own tree (./internal/...) are not published with it.
	sed -n 's/^replace \([^ ]*\) => \([^. ][^ ]*\) \([^ ]*\)$/\1=\2@\3/p' "$gomod" | while read -r r; do
		go mod edit -replace "$r"
	done
	go get -tool "github.com/ory/hydra/v2@$version" >/dev/null 2>&1
	go build -tags sqlite,json1 -o "$work/hydra" github.com/ory/hydra/v2
)
echo "server: go-sdk $(cd "$here/gosdk" && go list -m -f '{{.Version}}' github.com/modelcontextprotocol/go-sdk), authorization server: ORY Hydra $version"

# Hydra signs with keys it derives from secrets.system, which it requires
# even in memory. Registration is served at /oauth2/register once enabled,
# but the discovery document names it only when told where it is.
DSN=memory SECRETS_SYSTEM=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n') \
	URLS_SELF_ISSUER="$issuer" URLS_LOGIN="$app/login" URLS_CONSENT="$app/consent" \
	SERVE_PUBLIC_HOST=127.0.0.1 SERVE_PUBLIC_PORT=$public_port SERVE_ADMIN_HOST=127.0.0.1 SERVE_ADMIN_PORT=$admin_port \
	OIDC_DYNAMIC_CLIENT_REGISTRATION_ENABLED=true WEBFINGER_OIDC_DISCOVERY_CLIENT_REGISTRATION_URL="$issuer/oauth2/register" \
	OAUTH2_PKCE_ENFORCED_FOR_PUBLIC_CLIENTS=$([ "${PKCE_ENFORCED:-}" = 1 ] && echo true || echo false) \
	"$work/hydra" serve all --dev --sqa-opt-out >"$work/hydra.log" 2>&1 &
pids+=($!)
"$work/hydraconsent" -listen "127.0.0.1:$app_port" -admin "$admin" >"$work/consent.log" 2>&1 &
pids+=($!)
wait_for "$issuer/.well-known/openid-configuration"
wait_for "$admin/health/ready"
"$work/mcpserver" -resource "$resource" -issuer "$issuer" -introspection "$admin/admin/oauth2/introspect" >"$work/mcp.log" 2>&1 &
pids+=($!)
wait_for "$resource"

# The consent app approves at once, so the approval command only follows
# the redirects between Hydra and the app to the redirect_uri.
redirect_uri=http://127.0.0.1:8765/callback
cat >"$work/profile.yaml" <<PROFILE
target: $resource
oauth:
  authorization_approval_command: "$work/approve -via $app {authorization_url}"
mcp_authorization:
  other_resource: http://127.0.0.1:$mcp_port/other
  redirect_uri: $redirect_uri
PROFILE
if [ "${CONFIDENTIAL:-}" = 1 ]; then
	reg=$(curl -sf -X POST "$issuer/oauth2/register" -H 'Content-Type: application/json' \
		-d "{\"client_name\":\"conform-confidential\",\"redirect_uris\":[\"$redirect_uri\"],\"grant_types\":[\"authorization_code\",\"refresh_token\"],\"response_types\":[\"code\"],\"token_endpoint_auth_method\":\"${CONFIDENTIAL_METHOD:-client_secret_basic}\"}")
	member() { printf '%s' "$reg" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"; }
	export CONFORM_HYDRA_CLIENT_SECRET
	CONFORM_HYDRA_CLIENT_SECRET=$(member client_secret)
	cat >>"$work/profile.yaml" <<PROFILE
  client_id: $(member client_id)
  client_secret_env: CONFORM_HYDRA_CLIENT_SECRET
  client_auth_method: ${CONFIDENTIAL_METHOD:-client_secret_basic}
PROFILE
fi
judge --concurrency 1 "$@"
