package steps

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

func (st *authzState) credentialOrAnonymous() error {
	st.auth = ""
	if st.Target.Credential != "" {
		st.auth = "Bearer " + st.Target.Credential
	}
	return nil
}

// probeWithOrigin sends the lone request any MCP server answers on its own,
// without a session or a request before it (server/discover in 2026-07-28,
// initialize in earlier revisions), with an Origin header when origin is
// not "".
func (st *authzState) probeWithOrigin(ctx context.Context, origin string) error {
	origin, err := st.expand(origin)
	if err != nil {
		return err
	}
	extra := http.Header{}
	if origin != "" {
		extra.Set("Origin", origin)
	}
	r, err := st.MCP.Probe(ctx, st.auth, extra)
	return st.took(r, err)
}

func (st *authzState) originControl() error {
	h, err := st.needLast()
	if err != nil {
		return err
	}
	if (h.status == http.StatusUnauthorized || h.status == http.StatusForbidden) && st.auth != "" {
		if died := st.credentialDied(h.describe()); died != "" {
			return st.skip(died)
		}
	}
	switch h.status {
	case http.StatusUnauthorized:
		if c := h.header.Values("WWW-Authenticate"); len(c) > 0 && !hasBearer(c) {
			// Authorization of its own (authorization.1.2): a Bearer token
			// from credential_env would not get past it.
			return st.skip(fmt.Sprintf("the server answers 401 with WWW-Authenticate %q before it looks at the Origin, authorization of its own; "+
				"the suite presents Bearer tokens only, so the Origin alone cannot decide", strings.Join(c, ", ")))
		}
		if st.auth != "" {
			return st.skip("the server answers 401 with the target's credential before it looks at the Origin, so the Origin alone does not decide; check credential_env")
		}
		return st.skip("without a token the server answers 401 before it looks at the Origin: set credential_env so the Origin alone decides")
	case http.StatusForbidden:
		return st.skip("the server answers 403 even without an Origin header, so a 403 with one would not show Origin validation")
	}
	return nil
}
