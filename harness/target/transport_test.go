package target_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/harness/wire"
)

var _ = Describe("the connection the user sets", func() {
	// seen records the headers each server received.
	type seen struct{ header http.Header }
	serve := func(into *[]seen, delay time.Duration) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			*into = append(*into, seen{r.Header.Clone()})
			time.Sleep(delay)
			_, _ = io.WriteString(w, `{"ok":true}`)
		}))
		DeferCleanup(srv.Close)
		return srv
	}

	It("parses headers as curl takes them, and refuses what is not one", func() {
		k, v, err := target.ParseHeader("x-api-key:  abc: def ")
		Expect(err).NotTo(HaveOccurred())
		Expect(k).To(Equal("X-Api-Key"))
		Expect(v).To(Equal("abc: def"))
		for _, bad := range []string{"no colon", ": value", "two words: v"} {
			_, _, err := target.ParseHeader(bad)
			Expect(err).To(MatchError(ContainSubstring("'Name: value'")), bad)
		}
		_, _, err = target.ParseHeader("X-Api-Key s3cret-key")
		Expect(err.Error()).NotTo(ContainSubstring("s3cret-key"), "a malformed header's value may be a key")
	})

	It("refuses the headers the checks decide themselves, naming where a credential goes", func() {
		for _, h := range []string{"Authorization: Bearer x", "origin: http://x", "Mcp-Session-Id: 1", "MCP-Protocol-Version: 2025-06-18"} {
			_, _, err := target.ParseHeader(h)
			Expect(err).To(HaveOccurred(), h)
		}
		_, _, err := target.ParseHeader("Authorization: Bearer x")
		Expect(err).To(MatchError(ContainSubstring("credential_env")))
	})

	It("sends the user's headers to the target's origin only, never to another", func() {
		var atTarget, elsewhere []seen
		tsrv, other := serve(&atTarget, 0), serve(&elsewhere, 0)
		t := target.FromProfile(profile.Default(tsrv.URL))
		t.Connect(target.Connection{Headers: http.Header{"X-Gateway-Key": {"k1"}}})

		for _, u := range []string{tsrv.URL + "/mcp", other.URL + "/token"} {
			resp, err := t.HTTP.Get(u)
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
		}
		Expect(atTarget[0].header.Get("X-Gateway-Key")).To(Equal("k1"))
		Expect(elsewhere[0].header).NotTo(HaveKey("X-Gateway-Key"))
	})

	It("bounds each request by the timeout given", func() {
		var got []seen
		srv := serve(&got, 300*time.Millisecond)
		t := target.FromProfile(profile.Default(srv.URL))
		t.Connect(target.Connection{Timeout: 50 * time.Millisecond})
		_, err := t.HTTP.Get(srv.URL + "/mcp")
		Expect(err).To(MatchError(ContainSubstring("Timeout")))
	})

	It("trusts a self-signed certificate only when asked", func() {
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
		DeferCleanup(srv.Close)
		t := target.FromProfile(profile.Default(srv.URL))
		t.Connect(target.Connection{})
		_, err := t.HTTP.Get(srv.URL)
		Expect(err).To(HaveOccurred())
		t.Connect(target.Connection{Insecure: true})
		resp, err := t.HTTP.Get(srv.URL)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
	})

	It("logs every exchange, with the credential masked", func() {
		var got []seen
		srv := serve(&got, 0)
		t := target.FromProfile(profile.Default(srv.URL))
		var log bytes.Buffer
		t.Connect(target.Connection{Log: &log})
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{"method":"tools/list"}`))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Authorization", "Bearer s3cret-token")
		resp, err := t.HTTP.Do(req)
		Expect(err).NotTo(HaveOccurred())
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(log.String()).To(ContainSubstring("POST " + srv.URL + "/mcp"))
		Expect(log.String()).To(ContainSubstring(`{"method":"tools/list"}`))
		Expect(log.String()).To(ContainSubstring(`{"ok":true}`))
		Expect(log.String()).NotTo(ContainSubstring("s3cret-token"))
	})

	It("logs the user's headers as they went out, their values masked (issue 24 item 5)", func() {
		var got []seen
		srv := serve(&got, 0)
		t := target.FromProfile(profile.Default(srv.URL))
		var log bytes.Buffer
		t.Connect(target.Connection{Log: &log, Headers: http.Header{"X-Gateway-Key": {"k-123"}}})
		resp, err := t.HTTP.Get(srv.URL + "/mcp")
		Expect(err).NotTo(HaveOccurred())
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(got[0].header.Get("X-Gateway-Key")).To(Equal("k-123"), "the masking is the log's alone")
		Expect(log.String()).To(ContainSubstring("> X-Gateway-Key: " + wire.Masked + "\n"))
		Expect(log.String()).NotTo(ContainSubstring("k-123"))
	})
})
