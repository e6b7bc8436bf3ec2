package host_test

import (
	"context"
	"errors"
	"net/http"

	"github.com/conform-mcp/conform/impl/caller"
)

// staticToken is the one credential the fake authority accepts.
const staticToken = "static-owner-token"

// fakeAuthority stands in for the OAuth server: one static owner token, and
// the protected-resource metadata the 401 challenge points at.
type fakeAuthority struct{}

func (fakeAuthority) Verify(_ context.Context, token string) (caller.Caller, error) {
	if token == staticToken {
		return caller.Caller{ClientID: "test-client", Role: "owner"}, nil
	}
	return caller.Caller{}, errors.New("unknown credential")
}

func (fakeAuthority) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"resource":"test"}`))
	})
}
