package clientsteps_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/clientrun"
	"github.com/conform-mcp/conform/harness/clientsteps"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/scripted"
)

// config runs the test client of pack with the given breaks.
func config(pack, breaks string) clientsteps.Config {
	base := clientrun.Quote(fakeclientBin) + " -pack " + pack + " -url {url} -state {state_dir}"
	if breaks != "" {
		base += " -break " + breaks
	}
	return clientsteps.Config{Pack: pack, Command: base, Second: base + " -tool {tool} -args {args}", Timeout: 30 * time.Second, StateDir: GinkgoT().TempDir()}
}

var _ = Describe("the reference client", func() {
	for _, pack := range []string{"mcp-authorization", "source"} {
		It("passes every client scenario of pack "+pack, func() {
			got, err := runPack(config(pack, ""))
			Expect(err).NotTo(HaveOccurred())
			Expect(got).NotTo(BeEmpty())
			for name, v := range got {
				Expect(v.status).To(Equal(outcome.Passed), "%s: %s", name, v.why)
			}
		})
	}
})

var _ = Describe("a client registered beforehand", func() {
	It("is known to the scripted authorization servers, and leaves only what judges registration not applicable", func() {
		cfg := config("mcp-authorization", "")
		pre := " -client-id static-one -client-secret s3cr3t-value"
		cfg.Command += pre
		cfg.Second += pre
		cfg.Preregistered = scripted.Preregistered{ID: "static-one", Secret: "s3cr3t-value"}
		expectPassedWithoutRegistering(cfg)
	})
})

var _ = Describe("a client known by its client ID metadata document", func() {
	It("is known to the scripted authorization servers, which fetch its document, and leaves only what judges registration not applicable", func() {
		var docURL string
		doc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"client_id":%q,"client_name":"fakeclient","redirect_uris":["http://127.0.0.1/callback"]}`, docURL)
		}))
		DeferCleanup(doc.Close)
		docURL = doc.URL + "/client.json"
		cfg := config("mcp-authorization", "")
		cfg.Command += " -client-id " + docURL
		cfg.Second += " -client-id " + docURL
		expectPassedWithoutRegistering(cfg)
	})
})

// expectPassedWithoutRegistering runs cfg, a reference client that never
// registers dynamically, and expects every scenario passed but those that
// judge registration or the refresh grant it registers for, which are not
// applicable.
func expectPassedWithoutRegistering(cfg clientsteps.Config) {
	GinkgoHelper()
	got, err := runPack(cfg)
	Expect(err).NotTo(HaveOccurred())
	Expect(got).To(HaveKey(cliS256))
	for name, v := range got {
		switch name {
		case cliAppType, cliRebind, cliRefreshRes, cliRefreshGrant, cliNoRefresh:
			Expect(v.status).To(Equal(outcome.NotRun), name)
			Expect(v.why).To(HavePrefix(outcome.NotApplicable), name)
		default:
			Expect(v.status).To(Equal(outcome.Passed), "%s: %s", name, v.why)
		}
	}
}
