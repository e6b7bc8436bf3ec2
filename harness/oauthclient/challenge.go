package oauthclient

import (
	"context"
	"net/http"
	"strings"

	"github.com/conform-mcp/conform/harness/wire"
)

// Scope is the scope a client asks for, as MCP's Scope Selection Strategy
// orders it: the scope of the 401 challenge, if any; else every scope of the
// protected resource metadata's scopes_supported; else none ("").
func Scope(challengeScope string, scopesSupported []string) string {
	if s := strings.TrimSpace(challengeScope); s != "" {
		return s
	}
	return strings.Join(scopesSupported, " ")
}

// FollowChallenge is the chain a client walks from the answer to a request
// that needs authorization to what it asks the authorization server for:
// the Bearer challenge of a 401 (RFC 6750 section 3) names the metadata
// (RFC 9728 section 5.1) and may name a scope; the metadata names the
// authorization server (FindIssuer); the scope follows Scope. status and
// challenges are the answer's status and WWW-Authenticate values; only a
// 401's challenge is read. The issuer is "" with the error when no metadata
// names one; the scope is chosen all the same.
func FollowChallenge(ctx context.Context, hc *http.Client, endpoint string, status int, challenges []string) (issuer, scope string, err error) {
	metadata, challengeScope := "", ""
	if status == http.StatusUnauthorized {
		metadata = wire.ChallengeParam(challenges, "Bearer", "resource_metadata")
		challengeScope = wire.ChallengeParam(challenges, "Bearer", "scope")
	}
	issuer, scopes, err := FindIssuer(ctx, hc, endpoint, metadata)
	return issuer, Scope(challengeScope, scopes), err
}
