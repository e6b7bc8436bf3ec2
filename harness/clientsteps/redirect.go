package clientsteps

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/cucumber/godog"
)

// The judgement of the host a client's loopback redirect URIs name.
func (st *scenario) registerRedirect(sc *godog.ScenarioContext) {
	sc.Step(`^no redirect URI the client registered or sent names the host localhost$`, st.judged(st.noLocalhostRedirect))
}

// noLocalhostRedirect: "While redirect URIs using the name localhost (i.e.,
// http://localhost:{port}/{path}) function similarly to loopback IP
// redirects, the use of localhost is NOT RECOMMENDED" (OAuth 2.1 8.4.2).
// Read in the redirect_uris of every registration and the redirect_uri of
// every authorization request.
func (st *scenario) noLocalhostRedirect() error {
	srv := st.first()
	auths, err := st.authorizations()
	if err != nil {
		return err
	}
	for _, r := range append(registrations(st.log.Requests(), srv), auths...) {
		uris := []string{r.URL.Query().Get("redirect_uri")}
		if !isAuthorization(r, srv) {
			var reg struct {
				RedirectURIs []string `json:"redirect_uris"`
			}
			_ = json.Unmarshal(r.Body, &reg)
			uris = reg.RedirectURIs
		}
		for _, u := range uris {
			if p, err := url.Parse(u); err == nil && strings.EqualFold(p.Hostname(), "localhost") {
				return st.depart("loopback redirect URI", "a loopback IP literal (127.0.0.1 or [::1]) as the redirect URI's host", u, r)
			}
		}
	}
	return nil
}
