// Command hydraconsent is the login and consent app ORY Hydra hands its
// users to (urls.login, urls.consent), for scripts/realworld/go-sdk-hydra.sh:
// it signs every login challenge in as one subject and grants every consent
// challenge what the client asked for, at once, through Hydra's admin API
// (plain HTTP), then redirects the user agent where Hydra says. It stands in
// for the person, so that conform's approval command can walk the flow.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"strings"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:13112", "the address the app listens on")
	admin := flag.String("admin", "http://127.0.0.1:13111", "Hydra's admin API")
	subject := flag.String("subject", "conform-user", "the subject every login is accepted as")
	flag.Parse()
	a := &app{admin: strings.TrimSuffix(*admin, "/"), subject: *subject}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", a.login)
	mux.HandleFunc("GET /consent", a.consent)
	log.Printf("login and consent app on %s, Hydra admin %s", *listen, a.admin)
	log.Fatal(http.ListenAndServe(*listen, mux))
}

// app answers Hydra's login and consent challenges through its admin API.
type app struct {
	admin   string
	subject string
}

// login accepts the login challenge as the app's subject (Hydra's
// PUT /admin/oauth2/auth/requests/login/accept).
func (a *app) login(w http.ResponseWriter, r *http.Request) {
	challenge := r.URL.Query().Get("login_challenge")
	a.accept(w, r, "login", challenge, map[string]any{"subject": a.subject, "remember": false})
}

// consent grants what the consent challenge asked for: its scope and its
// access token audience (GET, then PUT .../consent/accept).
func (a *app) consent(w http.ResponseWriter, r *http.Request) {
	challenge := r.URL.Query().Get("consent_challenge")
	var asked struct {
		Scope    []string `json:"requested_scope"`
		Audience []string `json:"requested_access_token_audience"`
	}
	if err := a.call(http.MethodGet, "/admin/oauth2/auth/requests/consent?consent_challenge="+url.QueryEscape(challenge), nil, &asked); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	a.accept(w, r, "consent", challenge, map[string]any{"grant_scope": asked.Scope, "grant_access_token_audience": asked.Audience, "remember": false})
}

// accept accepts a login or consent challenge with body and redirects the
// user agent to where Hydra's answer points.
func (a *app) accept(w http.ResponseWriter, r *http.Request, flow, challenge string, body map[string]any) {
	if challenge == "" {
		http.Error(w, "no "+flow+"_challenge", http.StatusBadRequest)
		return
	}
	var done struct {
		RedirectTo string `json:"redirect_to"`
	}
	path := fmt.Sprintf("/admin/oauth2/auth/requests/%s/accept?%s_challenge=%s", flow, flow, url.QueryEscape(challenge))
	if err := a.call(http.MethodPut, path, body, &done); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	http.Redirect(w, r, done.RedirectTo, http.StatusFound)
}

// call sends a JSON request to the admin API and decodes its JSON answer
// into out, failing on any status but 200.
func (a *app) call(method, path string, body, out any) error {
	var in io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		in = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.admin+path, in)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("hydra admin %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("hydra admin %s %s answered HTTP %d: %.300s", method, path, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("hydra admin %s %s: %w", method, path, err)
	}
	return nil
}
