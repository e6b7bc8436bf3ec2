// Command approve stands in for the person at an authorization endpoint,
// for conform's oauth.authorization_approval_command: it opens the
// authorization URL, follows the authorization server's redirects on its own
// origin and on those -via names (a login and consent app of its own, as ORY
// Hydra's), fills a sign-in form it meets with -username and -password (and
// submits any other form as it is, for a consent page), and prints the first
// URL the server redirects to on another origin: the redirect_uri with code
// or error. When the server stops at a page with no form, it exits 1, saying
// so: the server refused without redirecting.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"strings"
)

func main() {
	username := flag.String("username", "", "the user to sign in as")
	password := flag.String("password", "", "that user's password")
	via := flag.String("via", "", "comma-separated origins (scheme://host:port) the flow passes through, followed as the server's own")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: approve [-username U -password P] [-via ORIGINS] AUTHORIZATION_URL")
		os.Exit(2)
	}
	redirect, err := approve(flag.Arg(0), *username, *password, strings.Split(*via, ","))
	if err != nil {
		fmt.Fprintln(os.Stderr, "approve:", err)
		os.Exit(1)
	}
	fmt.Println(redirect)
}

// maxSteps bounds the pages and redirects walked, so a loop ends.
const maxSteps = 20

func approve(authorizationURL, username, password string, via []string) (string, error) {
	start, err := url.Parse(authorizationURL)
	if err != nil {
		return "", err
	}
	own := map[string]bool{start.Scheme + "://" + start.Host: true}
	for _, o := range via {
		own[strings.TrimSuffix(o, "/")] = true
	}
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodGet, authorizationURL, nil)
	for range maxSteps {
		resp, err := client.Do(req)
		if err != nil {
			return "", err
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if loc, err := resp.Location(); err == nil {
			if !own[loc.Scheme+"://"+loc.Host] {
				return loc.String(), nil
			}
			req, _ = http.NewRequest(http.MethodGet, loc.String(), nil)
			continue
		}
		f, ok := findForm(string(body))
		if !ok {
			return "", fmt.Errorf("stopped at HTTP %d from %s with no form to submit: %.200s", resp.StatusCode, req.URL, strings.TrimSpace(string(body)))
		}
		if f.has("password") {
			if username == "" {
				return "", errors.New("the server asks for a sign-in: pass -username and -password")
			}
			f.values.Set("username", username)
			f.values.Set("password", password)
		}
		if req, err = f.request(req.URL); err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("no redirect off %s after %d steps", start.Host, maxSteps)
}
