package fakeauthz_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
)

var _ = Describe("a URL-formatted client_id (Client ID Metadata Documents)", func() {
	// document serves a client ID metadata document naming clientID (its
	// own URL when "") and redirectURI.
	document := func(clientID string) string {
		var self string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			id := clientID
			if id == "" {
				id = self
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"client_id":%q,"client_name":"c","redirect_uris":[%q]}`, id, redirectURI)
		}))
		DeferCleanup(srv.Close)
		self = srv.URL + "/client.json"
		return self
	}

	It("is a client when its document names it and the redirect URI sent", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		status, back, _ := authorize(h, authRequest(h, document(""), nil))
		Expect(status).To(Equal(http.StatusFound))
		Expect(back.Get("code")).NotTo(BeEmpty())
	})

	It("is no client when its document names another client_id", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		status, back, _ := authorize(h, authRequest(h, document("https://elsewhere.example/client.json"), nil))
		Expect(back.Get("code")).To(BeEmpty())
		Expect(status).NotTo(Equal(http.StatusFound))
	})
})
