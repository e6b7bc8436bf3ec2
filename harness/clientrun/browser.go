package clientrun

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Browser stands in for the person at the browser. conform is the
// authorization server in the client half, and approves its own
// authorization requests at once, so all the stand-in does is what a
// browser would: fetch the authorization URL, and deliver the redirect it
// answers to the client's loopback listener.
//
// The client reaches it two ways: through BROWSER, which names a small sh
// script that writes each URL it is given into a directory conform watches
// (it needs nothing but sh, printf and mv, so it works where curl is
// missing, and it returns at once as a browser launcher does); and by
// printing the URL, which conform reads in the client's output. Only URLs
// Allow admits are opened (the scripted authorization server's origin):
// the stand-in fetches nothing else a client names.
type Browser struct {
	// HTTP fetches the authorization URL and delivers the redirect.
	HTTP *http.Client
	// Allow says whether a URL is an authorization URL to open.
	Allow func(u string) bool
	// Patience is how long a redirect is retried while the client's
	// loopback listener is not up yet; 10s when 0.
	Patience time.Duration
}

// Opened is one authorization URL the stand-in opened.
type Opened struct {
	// URL is the authorization URL; Via says how the client gave it
	// ("BROWSER" or "output").
	URL, Via string
	// Redirect is where the authorization server sent the browser, and
	// Delivered whether the client's listener answered it.
	Redirect  string
	Delivered bool
	// Error says why the redirect was not delivered, if it was not.
	Error string
	// At is when the URL was opened.
	At time.Time
}

// standIn is the stand-in of one run.
type standIn struct {
	b      *Browser
	ctx    context.Context
	cancel context.CancelFunc
	dir    string
	script string
	done   chan struct{}

	mu     sync.Mutex
	seen   map[string]bool
	opened []*Opened
	wg     sync.WaitGroup
}

// pollEvery is how often the stand-in looks for URLs BROWSER handed over.
const pollEvery = 20 * time.Millisecond

var urlInText = regexp.MustCompile(`https?://[^\s"'<>]+`)

func (b *Browser) start(ctx context.Context) (*standIn, error) {
	dir, err := os.MkdirTemp("", "conform-browser-")
	if err != nil {
		return nil, fmt.Errorf("make the browser stand-in's directory: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &standIn{b: b, ctx: ctx, cancel: cancel, dir: dir, script: filepath.Join(dir, "browser"), done: make(chan struct{}), seen: map[string]bool{}}
	// Each URL goes into a file of its own, written under a hidden name
	// and renamed, so conform never reads half of one.
	q := Quote(dir)
	script := "#!/bin/sh\n# conform's stand-in for a web browser: it hands each URL to conform.\nn=0\nfor u in \"$@\"; do\n" +
		"  n=$((n+1))\n  printf '%s' \"$u\" > " + q + "/.url.$$.$n && mv " + q + "/.url.$$.$n " + q + "/url.$$.$n\ndone\n"
	if err := os.WriteFile(s.script, []byte(script), 0o700); err != nil {
		cancel()
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("write the browser stand-in: %w", err)
	}
	go s.poll()
	return s, nil
}

func (s *standIn) poll() {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		s.collect()
		select {
		case <-s.done:
			return
		case <-t.C:
		}
	}
}

// collect opens every URL BROWSER has handed over since last time.
func (s *standIn) collect() {
	names, _ := filepath.Glob(filepath.Join(s.dir, "url.*"))
	sort.Strings(names)
	for _, n := range names {
		data, err := os.ReadFile(n)
		_ = os.Remove(n)
		if err == nil {
			s.open(strings.TrimSpace(string(data)), "BROWSER")
		}
	}
}

// watchLine opens the authorization URLs a line of the client's output names.
func (s *standIn) watchLine(line string) {
	for _, u := range urlInText.FindAllString(line, -1) {
		s.open(strings.TrimRight(u, ".,;)"), "output")
	}
}

// sameRequest is what two spellings of one authorization URL share: a
// client that prints its URL and hands it to $BROWSER may encode its query
// twice differently (a space as + in one, %20 in the other, parameters in
// another order). A person opens one of them; so does the stand-in, so that
// the authorization server sees the client's request once.
func sameRequest(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + u.Host + u.EscapedPath() + "?" + q.Encode()
}

func (s *standIn) open(u, via string) {
	if u == "" || s.b.Allow == nil || !s.b.Allow(u) {
		return
	}
	key := sameRequest(u)
	s.mu.Lock()
	if s.seen[key] || s.stopped() {
		s.mu.Unlock()
		return
	}
	s.seen[key] = true
	o := &Opened{URL: u, Via: via, At: time.Now()}
	s.opened = append(s.opened, o)
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		redirect, err := s.b.follow(s.ctx, u)
		s.mu.Lock()
		defer s.mu.Unlock()
		o.Redirect = redirect
		if err != nil {
			o.Error = err.Error()
			return
		}
		o.Delivered = true
	}()
}

// stopped says, under s.mu, whether stop has begun: no delivery starts then.
func (s *standIn) stopped() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// stop ends the watch and any delivery under way, and removes the stand-in.
func (s *standIn) stop() {
	s.mu.Lock()
	if !s.stopped() {
		close(s.done)
	}
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	_ = os.RemoveAll(s.dir)
}

// finish, once the client has ended, opens what it handed over last, ends
// the deliveries (no listener is left to deliver to) and returns what was
// opened.
func (s *standIn) finish() []Opened {
	s.collect()
	s.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Opened, 0, len(s.opened))
	for _, o := range s.opened {
		out = append(out, *o)
	}
	return out
}

// follow fetches the authorization URL and delivers the redirect it
// answers, as a browser would, retrying while nothing listens yet.
func (b *Browser) follow(ctx context.Context, authorizationURL string) (string, error) {
	hc := *b.HTTP
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := get(ctx, &hc, authorizationURL)
	if err != nil {
		return "", fmt.Errorf("open the authorization URL: %w", err)
	}
	loc := resp.Header.Get("Location")
	if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
		return "", fmt.Errorf("the authorization URL answered %d without a redirect", resp.StatusCode)
	}
	target, err := resp.Request.URL.Parse(loc)
	if err != nil || target.Scheme != "http" || !loopback(target.Hostname()) {
		// Only a loopback listener is delivered to: the client's own.
		return loc, fmt.Errorf("the redirect %q is not to a loopback http listener", loc)
	}
	patience := b.Patience
	if patience <= 0 {
		patience = 10 * time.Second
	}
	deadline := time.Now().Add(patience)
	for {
		// Delivered once the whole request reached the listener: a client
		// that has what it needs may close before it answers the browser.
		var wrote atomic.Bool
		trace := &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) { wrote.Store(i.Err == nil) }}
		_, err := get(httptrace.WithClientTrace(ctx, trace), &hc, target.String())
		if err == nil || wrote.Load() {
			return target.String(), nil
		}
		if !refused(err) || time.Now().After(deadline) {
			return target.String(), fmt.Errorf("deliver the redirect: %w", err)
		}
		select {
		case <-ctx.Done():
			return target.String(), fmt.Errorf("deliver the redirect: %w", ctx.Err())
		case <-time.After(pollEvery * 5):
		}
	}
}

func get(ctx context.Context, hc *http.Client, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	_ = resp.Body.Close()
	return resp, nil
}

// refused says whether nothing listened yet at the redirect's address.
func refused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// SameOrigin returns an Allow that admits the URLs on origin (scheme://host:port).
func SameOrigin(origins ...string) func(string) bool {
	return func(raw string) bool {
		u, err := url.Parse(raw)
		if err != nil {
			return false
		}
		for _, o := range origins {
			if u.Scheme+"://"+u.Host == strings.TrimSuffix(o, "/") {
				return true
			}
		}
		return false
	}
}
