package oauthclient

import "net/url"

// RefreshForm is the token request that refreshes an access token (OAuth
// 2.1 section 4.3.1): a public client names itself with client_id, and the
// resource indicator (RFC 8707 section 2.2) keeps the new token bound to
// the resource the first was for. A scenario changes what it tests.
func RefreshForm(refreshToken, clientID, resource string) url.Values {
	f := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {clientID}}
	if resource != "" {
		f.Set("resource", resource)
	}
	return f
}
