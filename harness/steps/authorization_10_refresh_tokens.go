package steps

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/conform-mcp/conform/harness/wire"
)

func (st *authzState) scopesSupportedLacks(scope string) error {
	d, err := st.needMetadata()
	if err != nil {
		return err
	}
	if d.status != http.StatusOK || d.object == nil {
		return st.skip(fmt.Sprintf("the protected resource metadata at %s is no JSON object served with HTTP 200, so it has no scopes_supported to judge (PRM-3 checks that)", d.url))
	}
	list, _ := d.object["scopes_supported"].([]any)
	for _, v := range list {
		if v == scope {
			return st.depart("scopes_supported", "no "+scope, wire.JSONText(list), d.ex)
		}
	}
	return nil
}

func (st *authzState) challengeScopeLacks(scope string) error {
	h, err := st.needLast()
	if err != nil {
		return err
	}
	c := bearerIn(h.header.Values("WWW-Authenticate"))
	if c == nil {
		return nil
	}
	for _, s := range strings.Fields(c.Params["scope"]) {
		if s == scope {
			return st.depart("scope of the challenge", "no "+scope, c.Params["scope"], h.lastExchange())
		}
	}
	return nil
}
