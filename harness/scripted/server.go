package scripted

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Server is one running scripted server, as the scenario's steps see it.
type Server struct {
	// Name is what the log calls it ("first", "second").
	Name string
	// Endpoint is the MCP endpoint a client is pointed at ({url}).
	Endpoint string
	// Issuer is the authorization server's issuer identifier.
	Issuer string
	// Resource is the protected resource metadata's resource.
	Resource string
	// Origins are its origins by role ("mcp", "as"); one origin may serve
	// both.
	Origins map[string]string
	// Authorize is the authorization endpoint, whose URLs the stand-in
	// browser opens ("" when the server has none: the device grant needs
	// no browser).
	Authorize string
	// Metadata is the protected resource metadata URL its 401 challenge
	// names ("" when it names none).
	Metadata string
	// Tool is a tool it offers that needs authorization, with Args.
	Tool, Args string
	// ErrorArgs are arguments with which Tool's result is isError true,
	// where the server has such a call ("" otherwise).
	ErrorArgs string

	close  func()
	revoke func()
	move   func() error
}

// MoveAuthorization makes the server name another authorization server in
// its protected resource metadata from now on, and take no token from then
// on: neither the new one's (the scenario judges only what the client sends
// it) nor the first one's, refreshed or not. Issuer, Authorize and Origins
// then name the new one.
func (s *Server) MoveAuthorization() error {
	if s.move == nil {
		return fmt.Errorf("the scripted server %s cannot move to another authorization server", s.Name)
	}
	return s.move()
}

// Close stops the server.
func (s *Server) Close() { s.close() }

// Revoke makes every access credential it issued stop working (fakehost's
// device grant credentials are revoked, fakeauthz's access tokens expire,
// its refresh tokens still hold); false when the server cannot.
func (s *Server) Revoke() bool {
	if s.revoke == nil {
		return false
	}
	s.revoke()
	return true
}

// Issued returns the access tokens the server's authorization server issued,
// read from the token responses in log.
func (s *Server) Issued(log *Log) []string {
	var out []string
	for _, r := range log.Requests() {
		if r.Server != s.Name || r.Status != 200 || !strings.HasSuffix(r.URL.Path, "/token") {
			continue
		}
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		if json.Unmarshal(r.RespBody, &tok) == nil && tok.AccessToken != "" {
			out = append(out, tok.AccessToken)
		}
	}
	return out
}
