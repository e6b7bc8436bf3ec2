package clientsteps_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
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

// documentScenarios judge a client that names itself by a client ID
// metadata document: not applicable to one that does not.
var documentScenarios = []string{cliDocURL, cliDocContent, cliDocSupport}

// notGiven are the scenarios not applicable to a client the profile gives
// neither a client registered beforehand nor a document: those of the
// document, the registration priority order, and a confidential client's
// authentication.
var notGiven = append(slices.Clone(documentScenarios), cliGivenFirst, cliSecretOnce)

// registrationScenarios judge dynamic registration, or the refresh grant a
// client registers for: not applicable to one that never registers.
var registrationScenarios = []string{cliAppType, cliRebind, cliRefreshRes, cliRefreshGrant, cliNoRefresh}

var _ = Describe("the reference client", func() {
	It("passes every client scenario of pack source", func() {
		expectPassedBut(config("source", ""))
	})
	It("passes every client scenario of pack mcp-authorization that judges a client that registers, leaving those of other ways to name a client not applicable", func() {
		expectPassedBut(config("mcp-authorization", ""), notGiven...)
	})
})

var _ = Describe("a client registered beforehand", func() {
	It("is known to the scripted authorization servers, and uses it rather than registering, authenticating as a confidential client", func() {
		expectPassedBut(withConfidential(config("mcp-authorization", "")), append(slices.Clone(documentScenarios), registrationScenarios...)...)
	})
})

// notDocument are the scenarios not applicable to a public client that
// names itself by a document: those of registering, and a confidential
// client's.
var notDocument = append(slices.Clone(registrationScenarios), cliSecretOnce)

// withConfidential is cfg for a confidential client registered beforehand,
// which the profile names with its secret.
func withConfidential(cfg clientsteps.Config) clientsteps.Config {
	pre := " -client-id static-one -client-secret s3cr3t-value"
	cfg.Command += pre
	cfg.Second += pre
	cfg.Preregistered = scripted.Preregistered{ID: "static-one", Secret: "s3cr3t-value"}
	return cfg
}

// document serves a client ID metadata document over TLS at
// {URL}/oauth/client.json, its members as body writes them given its URL.
type document struct {
	srv  *httptest.Server
	URL  string
	body func(url string) string
}

// compliantDocument is a document with every member the page requires.
func compliantDocument(u string) string {
	return fmt.Sprintf(`{"client_id":%q,"client_name":"fakeclient","redirect_uris":["http://127.0.0.1/callback"]}`, u)
}

// serveDocument starts a document server, closed when the spec ends.
func serveDocument(tls bool, body func(url string) string) *document {
	d := &document{body: body}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/oauth/client.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, d.body(d.URL))
	})
	if tls {
		d.srv = httptest.NewTLSServer(h)
	} else {
		d.srv = httptest.NewServer(h)
	}
	DeferCleanup(d.srv.Close)
	d.URL = d.srv.URL + "/oauth/client.json"
	return d
}

// withDocument is cfg for a client that names itself by d, which the
// profile names too, its TLS trusted by the scripted servers and the
// judgements.
func withDocument(cfg clientsteps.Config, d *document) clientsteps.Config {
	cfg.Command += " -client-metadata-url " + d.URL
	cfg.Second += " -client-metadata-url " + d.URL
	cfg.MetadataURL = d.URL
	cfg.Documents = d.srv.Client()
	return cfg
}

var _ = Describe("a client known by its client ID metadata document", func() {
	It("is known to the scripted authorization servers, which fetch its document, and passes every scenario but those of registering", func() {
		expectPassedBut(withDocument(config("mcp-authorization", ""), serveDocument(true, compliantDocument)), notDocument...)
	})

	It("fails only CLI-32 when its document's URL is http", func() {
		got, err := runPack(withDocument(config("mcp-authorization", ""), serveDocument(false, compliantDocument)))
		Expect(err).NotTo(HaveOccurred())
		expectVerdicts(got, []string{cliDocURL}, notDocument)
		Expect(got[cliDocURL].why).To(ContainSubstring("an https URL with a path component"))
	})

	It("fails only CLI-33 when its document has no client_name", func() {
		got, err := runPack(withDocument(config("mcp-authorization", ""), serveDocument(true, func(u string) string {
			return fmt.Sprintf(`{"client_id":%q,"redirect_uris":["http://127.0.0.1/callback"]}`, u)
		})))
		Expect(err).NotTo(HaveOccurred())
		expectVerdicts(got, []string{cliDocContent}, notDocument)
		Expect(got[cliDocContent].why).To(ContainSubstring("client_name missing"))
	})

	It("fails CLI-33 when its document names another client_id, and leaves it not run when the document cannot be fetched", func() {
		d := serveDocument(true, func(string) string {
			return `{"client_id":"https://elsewhere.example/client.json","client_name":"fakeclient","redirect_uris":["http://127.0.0.1/callback"]}`
		})
		cfg := withDocument(config("mcp-authorization", ""), d)
		got, err := runTagged(cfg, "@CLI-33")
		Expect(err).NotTo(HaveOccurred())
		Expect(got[cliDocContent].status).To(Equal(outcome.Failed), got[cliDocContent].why)
		Expect(got[cliDocContent].why).To(ContainSubstring(`client_id "https://elsewhere.example/client.json"`))

		cfg.Documents = nil // the test server's certificate is trusted no more
		got, err = runTagged(cfg, "@CLI-33")
		Expect(err).NotTo(HaveOccurred())
		Expect(got[cliDocContent].status).To(Equal(outcome.NotRun), got[cliDocContent].why)
		Expect(got[cliDocContent].why).To(ContainSubstring("could not be fetched"))
	})
})

// expectPassedBut runs cfg and expects every scenario passed but those in
// notApplicable, which are not run as not applicable.
func expectPassedBut(cfg clientsteps.Config, notApplicable ...string) {
	GinkgoHelper()
	got, err := runPack(cfg)
	Expect(err).NotTo(HaveOccurred())
	expectVerdicts(got, nil, notApplicable)
	for _, name := range notApplicable {
		Expect(got[name].why).To(HavePrefix(outcome.NotApplicable), name)
	}
}

// expectVerdicts expects the scenarios in failed failed, those in notRun
// not run, and every other passed.
func expectVerdicts(got map[string]verdict, failed, notRun []string) {
	GinkgoHelper()
	Expect(got).NotTo(BeEmpty())
	for _, name := range append(slices.Clone(failed), notRun...) {
		Expect(got).To(HaveKey(name))
	}
	for name, v := range got {
		switch {
		case slices.Contains(failed, name):
			Expect(v.status).To(Equal(outcome.Failed), "%s: %s", name, v.why)
		case slices.Contains(notRun, name):
			Expect(v.status).To(Equal(outcome.NotRun), "%s: %s", name, v.why)
		default:
			Expect(v.status).To(Equal(outcome.Passed), "%s: %s", name, v.why)
		}
	}
}
