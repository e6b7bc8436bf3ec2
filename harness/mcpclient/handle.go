package mcpclient

import "context"

// CallInSession sends one JSON-RPC request with the Authorization value auth
// ("" for none) in the session the client opened for another one, owner,
// without opening a session of its own: a request presenting a session
// handle it was not given, which MCP servers "MUST NOT treat ... as
// authentication" (Security Best Practices, section 2.4.2). ok is false,
// and nothing is sent, when owner has no open session with an
// Mcp-Session-Id: a stateless server hands out no handle.
func (c *Client) CallInSession(ctx context.Context, auth, owner, method string, params any) (r *Reply, ok bool, err error) {
	s := c.session(owner)
	s.mu.Lock()
	st := s.state(c.offered())
	open := s.opened && s.id != ""
	s.mu.Unlock()
	if !open {
		return nil, false, nil
	}
	body, want, err := c.request(method, params)()
	if err != nil {
		return nil, true, err
	}
	r, err = c.post(ctx, auth, jsonType, body, st, want)
	return r, true, err
}
