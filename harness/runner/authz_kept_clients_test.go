package runner_test

import (
	"context"
	"io"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/credentials"
	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/registrations"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

// Issue 24 item 3: source 7.3's "A client registers once and keeps its
// client_id", across runs that share a state directory.
var _ = Describe("the mcp-authorization pack's clients, kept from one run to the next", func() {
	// run is one conform run: the credentials obtained before the
	// scenarios, then the scenarios, with the clients kept in dir.
	run := func(h *fakeauthz.Host, dir string) *target.Target {
		GinkgoHelper()
		t := h.Target()
		t.Credential = ""
		t.Clients = registrations.Open(dir, GinkgoWriter)
		credentials.Authorization(context.Background(), t, io.Discard)
		Expect(t.Credential).NotTo(BeEmpty(), t.CredentialUnobtained)
		r, err := runner.Run(context.Background(), runner.Options{Target: t, Pack: spec.Authorization, Tags: fakeRunnable})
		Expect(err).NotTo(HaveOccurred())
		expectAuthzCompliant(r)
		return t
	}

	It("registers the client of its tokens in the first run only; what judges registration registers every run", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		dir := GinkgoT().TempDir()
		first := run(h, dir)
		// The tokens' client (the scenarios' second client), REG-2's own
		// registration, and those of REG-9, REG-12 and REDIR-4.
		Expect(h.Registered()).To(Equal(5))
		second := run(h, dir)
		Expect(h.Registered()).To(Equal(5 + 4))
		Expect(second.Tokens.Client).To(Equal(first.Tokens.Client))
	})

	It("registers anew, silently, when the server no longer knows the kept client, and keeps the new one", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		dir := GinkgoT().TempDir()
		first := run(h, dir)
		key := registrations.Key{Server: first.Tokens.Client.Issuer, RedirectURI: first.Profile.MCPAuthorization.RedirectURI, Use: registrations.CodeTokens}
		registrations.Open(dir, GinkgoWriter).Keep(key, registrations.Client{ID: "removed-after-seven-days"})
		second := run(h, dir)
		Expect(h.Registered()).To(Equal(5 + 5))
		Expect(second.Tokens.Client.ID).NotTo(Equal("removed-after-seven-days"))
		c, _, ok := registrations.Open(dir, GinkgoWriter).Get(key)
		Expect(ok).To(BeTrue())
		Expect(c.ID).To(Equal(second.Tokens.Client.ID))
	})

	It("keeps the kept client when the token endpoint throttles the flow: a rate limit says nothing of the client", func() {
		h := fakeauthz.Start(fakeauthz.TokenThrottled)
		DeferCleanup(h.Close)
		dir := GinkgoT().TempDir()
		t := h.Target()
		t.Credential = ""
		// Kept by an earlier run: this one has not seen the server accept it.
		key := registrations.Key{Server: h.Issuer(), RedirectURI: t.Profile.MCPAuthorization.RedirectURI, Use: registrations.CodeTokens}
		registrations.Open(dir, GinkgoWriter).Keep(key, registrations.Client{ID: fakeauthz.SecondID})
		t.Clients = registrations.Open(dir, GinkgoWriter)
		credentials.Authorization(context.Background(), t, io.Discard)
		Expect(t.Credential).To(BeEmpty())
		Expect(t.CredentialUnobtained).To(ContainSubstring(`token request throttled by the authorization server's rate limit: HTTP 429, Retry-After "3600"`))
		Expect(h.Registered()).To(BeZero())
		c, _, ok := registrations.Open(dir, GinkgoWriter).Get(key)
		Expect(ok).To(BeTrue())
		Expect(c.ID).To(Equal(fakeauthz.SecondID))
	})
})
