package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// introspector checks a token by asking the authorization server about it
// (RFC 7662 2.1), authenticating with client_secret_basic, since the
// providers judged here issue opaque access tokens.
type introspector struct {
	endpoint     string
	clientID     string
	clientSecret string
	audience     string
}

// introspection is the part of an RFC 7662 2.2 answer the server uses; aud
// may be a string or an array (RFC 7519 4.1.3).
type introspection struct {
	Active bool            `json:"active"`
	Scope  string          `json:"scope"`
	Exp    int64           `json:"exp"`
	Sub    string          `json:"sub"`
	Aud    json.RawMessage `json:"aud"`
}

func (in *introspector) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(in.clientID), url.QueryEscape(in.clientSecret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("introspection: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("introspection answered HTTP %d", resp.StatusCode)
	}
	var got introspection
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		return nil, fmt.Errorf("introspection: %w", err)
	}
	if !got.Active {
		return nil, auth.ErrInvalidToken
	}
	// MCP authorization, Token Handling: a server MUST validate that a
	// token was issued for it; when the provider names the audience, it
	// has to name this server.
	if in.audience != "" && !slices.Contains(audiences(got.Aud), in.audience) {
		return nil, fmt.Errorf("%w: audience is not %s", auth.ErrInvalidToken, in.audience)
	}
	return &auth.TokenInfo{Scopes: strings.Fields(got.Scope), Expiration: time.Unix(got.Exp, 0), UserID: got.Sub}, nil
}

func audiences(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	return many
}
