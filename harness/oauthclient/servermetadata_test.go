package oauthclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

var _ = Describe("authorization server metadata discovery", func() {
	It("tries the metadata URIs of an issuer with a path in the order the specification gives", func() {
		uris, err := oauthclient.ServerMetadataURIs("https://auth.example/tenant1")
		Expect(err).NotTo(HaveOccurred())
		Expect(uris).To(Equal([]string{
			"https://auth.example/.well-known/oauth-authorization-server/tenant1",
			"https://auth.example/.well-known/openid-configuration/tenant1",
			"https://auth.example/tenant1/.well-known/openid-configuration",
		}))
	})

	It("tries RFC 8414 then OpenID Connect Discovery for an issuer without a path", func() {
		uris, err := oauthclient.ServerMetadataURIs("https://auth.example/")
		Expect(err).NotTo(HaveOccurred())
		Expect(uris).To(Equal([]string{
			"https://auth.example/.well-known/oauth-authorization-server",
			"https://auth.example/.well-known/openid-configuration",
		}))
		_, err = oauthclient.ServerMetadataURIs("auth.example")
		Expect(err).To(HaveOccurred())
	})

	It("finds the first document that answers, keeping the answers before it", func() {
		mux := http.NewServeMux()
		mux.HandleFunc("/.well-known/openid-configuration/t", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"issuer":"x"}`))
		})
		srv := httptest.NewServer(mux)
		defer srv.Close()
		md, tried, err := oauthclient.DiscoverServer(context.Background(), srv.Client(), srv.URL+"/t")
		Expect(err).NotTo(HaveOccurred())
		Expect(md.URL).To(Equal(srv.URL + "/.well-known/openid-configuration/t"))
		Expect(md.String("issuer")).To(Equal("x"))
		Expect(tried).To(HaveLen(1))
		Expect(tried[0].Status).To(Equal(http.StatusNotFound))
	})
})
