package oauth_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A registration is stored for days on anyone's request: what it holds is
// bounded, and what it says must mean one thing to every JSON parser.
var _ = Describe("Registration bounds (RFC 7591 section 2)", func() {
	var h *host
	BeforeEach(func() { h = newHost() })

	registerWith := func(uris ...string) reply {
		b, err := json.Marshal(map[string]any{"redirect_uris": uris})
		Expect(err).NotTo(HaveOccurred())
		return h.postJSON("/oauth/register", string(b))
	}
	uris := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "https://app.example/cb" + strings.Repeat("x", i)
		}
		return out
	}
	// Issue 26 item 4: a registration writes at most 8 KB; the store's data
	// file is not committed for it.
	It("stores a registration with at most 8 KB of writes, and keeps it across a restart", func() {
		var id string
		writesNothing(h, func() {
			r := registerWith(uris(3)...)
			Expect(r.status).To(Equal(http.StatusCreated), r.body)
			id = r.str("client_id")
		})
		fi, err := os.Stat(filepath.Join(h.dir, "host.db.registrations"))
		Expect(err).NotTo(HaveOccurred())
		Expect(fi.Size()).To(BeNumerically("<=", 8<<10))
		h.restart()
		Expect(h.startDevice(id).userCode).NotTo(BeEmpty())
	})

	// uriOf is an https redirect URI of exactly n bytes.
	uriOf := func(n int) string {
		const prefix = "https://app.example/"
		return prefix + strings.Repeat("p", n-len(prefix))
	}

	It("accepts 10 redirect URIs and refuses 11", func() {
		Expect(registerWith(uris(10)...).status).To(Equal(http.StatusCreated))
		expectOAuthError(registerWith(uris(11)...), http.StatusBadRequest, "invalid_redirect_uri",
			"redirect_uris holds 11 URIs; at most 10 are accepted")
	})

	It("accepts a redirect URI of 1,024 bytes and refuses one of 1,025", func() {
		Expect(registerWith(uriOf(1024)).status).To(Equal(http.StatusCreated))
		expectOAuthError(registerWith(uriOf(1025)), http.StatusBadRequest, "invalid_redirect_uri",
			"redirect_uris holds a URI of 1025 bytes; at most 1024 are accepted")
	})

	DescribeTable("refuses a port that is not a TCP port",
		func(uri string) {
			r := registerWith(uri)
			expectOAuthError(r, http.StatusBadRequest, "invalid_redirect_uri", "")
			Expect(r.str("error_description")).To(HavePrefix("redirect_uris must name a port from 1 to 65535"))
		},
		Entry("99999 on loopback", "http://127.0.0.1:99999/cb"),
		Entry("65536 on https", "https://app.example:65536/cb"),
		Entry("0", "https://app.example:0/cb"),
		Entry("a private-use scheme's", "com.example.app://callback:99999/cb"),
	)

	It("accepts port 65535", func() {
		Expect(registerWith("http://127.0.0.1:65535/cb").status).To(Equal(http.StatusCreated))
	})

	DescribeTable("refuses a member named twice in one object (RFC 8259 section 4)",
		func(body, description string) {
			expectOAuthError(h.postJSON("/oauth/register", body), http.StatusBadRequest, "invalid_client_metadata", description)
		},
		Entry("redirect_uris twice",
			`{"redirect_uris":["https://a.example/cb"],"redirect_uris":["https://b.example/cb"]}`,
			"redirect_uris appears more than once in one object"),
		Entry("a name twice in a nested object",
			`{"redirect_uris":["https://a.example/cb"],"jwks":{"keys":[{"kid":"a","kid":"b"}]}}`,
			"kid appears more than once in one object"),
		Entry("a name that cannot be echoed, twice",
			`{"redirect_uris":["https://a.example/cb"],"\"<":1,"\"<":2}`,
			"A member appears more than once in one object"),
	)

	It("accepts one name in different objects", func() {
		r := h.postJSON("/oauth/register", `{"a":{"x":1},"b":[{"x":1},{"x":2}],"redirect_uris":["https://a.example/cb"],"x":3}`)
		Expect(r.status).To(Equal(http.StatusCreated), r.body)
	})
})
