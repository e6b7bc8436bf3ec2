#!/usr/bin/env bash
# Interop of the TypeScript SDK's v2 client (npm @modelcontextprotocol/client)
# with the reference host: it starts `toolhost serve` on loopback with a
# fresh data directory, obtains a credential through the device grant
# (approved with `toolhost approve`), and connects the client anonymously and
# with the credential. It needs Node.js 20+ and npm, so `make test` does not
# run it. TS_CLIENT_VERSION picks the client's version (default: latest 2.x).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

port=${PORT:-18181}
base=http://127.0.0.1:$port
(cd "$root" && go build -o "$work/toolhost" ./cmd/toolhost)
"$work/toolhost" serve --addr "127.0.0.1:$port" --data "$work/data" >"$work/host.log" 2>&1 &
pid=$!
for _ in $(seq 50); do curl -fs "$base/.well-known/mcp.json" >/dev/null && break; sleep 0.2; done

(cd "$work" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund "@modelcontextprotocol/client@${TS_CLIENT_VERSION:-2}" >/dev/null)
cp "$here/client.mjs" "$work/"
echo "client: @modelcontextprotocol/client $(node -p "require('$work/node_modules/@modelcontextprotocol/client/package.json').version")"

field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]??""))' "$1"; }
client_id=$(curl -fs -H 'Content-Type: application/json' -d '{"client_name":"interop","redirect_uris":["http://127.0.0.1:9/callback"]}' "$base/oauth/register" | field client_id)
grant=$(curl -fs -d "client_id=$client_id" "$base/oauth/device_authorization")
"$work/toolhost" approve --data "$work/data" --target "$base" "$(echo "$grant" | field user_code)" >/dev/null
token=$(curl -s -d "grant_type=urn:ietf:params:oauth:grant-type:device_code&client_id=$client_id&device_code=$(echo "$grant" | field device_code)" "$base/oauth/token" | field access_token)
[ -n "$token" ] || { echo "no credential from the device grant" >&2; exit 1; }

status=0
for mode in legacy auto pin; do
  node "$work/client.mjs" "$base/mcp" "$mode" || status=1
  node "$work/client.mjs" "$base/mcp" "$mode" "$token" || status=1
done
exit $status
