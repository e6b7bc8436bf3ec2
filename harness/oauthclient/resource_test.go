package oauthclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/oauthclient"
)

var _ = Describe("protected resource metadata discovery", func() {
	It("tries the MCP endpoint's path first, then the root", func() {
		uris, err := oauthclient.ResourceMetadataURIs("https://example.com/public/mcp")
		Expect(err).NotTo(HaveOccurred())
		Expect(uris).To(Equal([]oauthclient.ResourceMetadataURI{
			{URL: "https://example.com/.well-known/oauth-protected-resource/public/mcp", BuiltFrom: "https://example.com/public/mcp"},
			{URL: "https://example.com/.well-known/oauth-protected-resource", BuiltFrom: "https://example.com", Root: true},
		}))
	})

	It("has only the root URI for a resource at the root, and none for a relative one", func() {
		uris, err := oauthclient.ResourceMetadataURIs("https://example.com/")
		Expect(err).NotTo(HaveOccurred())
		Expect(uris).To(Equal([]oauthclient.ResourceMetadataURI{
			{URL: "https://example.com/.well-known/oauth-protected-resource", BuiltFrom: "https://example.com", Root: true},
		}))
		_, err = oauthclient.ResourceMetadataURIs("/mcp")
		Expect(err).To(HaveOccurred())
	})

	It("uses the challenge's resource_metadata alone when there is one", func(ctx context.Context) {
		var paths []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			paths = append(paths, r.URL.Path)
			if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
				_, _ = w.Write([]byte(`{"authorization_servers":["https://auth.example"]}`))
				return
			}
			http.NotFound(w, r)
		}))
		DeferCleanup(srv.Close)
		_, _, err := oauthclient.FindIssuer(ctx, srv.Client(), srv.URL+"/mcp", srv.URL+"/named-by-the-challenge")
		Expect(err).To(HaveOccurred())
		Expect(paths).To(Equal([]string{"/named-by-the-challenge"}), "the well-known URIs are the fallback when the challenge names none")
		issuer, _, err := oauthclient.FindIssuer(ctx, srv.Client(), srv.URL+"/mcp", "")
		Expect(err).NotTo(HaveOccurred())
		Expect(issuer).To(Equal("https://auth.example"))
	})

	It("says why when no metadata names an authorization server", func(ctx context.Context) {
		h := fakeauthz.Start(fakeauthz.MetadataUndiscoverable)
		DeferCleanup(h.Close)
		_, _, err := oauthclient.FindIssuer(ctx, h.Target().HTTP, h.Endpoint(), "")
		Expect(err).To(MatchError(ContainSubstring("no protected resource metadata")))
	})
})
