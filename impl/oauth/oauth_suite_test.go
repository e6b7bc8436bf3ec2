package oauth_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/clock"
	"github.com/conform-mcp/conform/impl/oauth"
	"github.com/conform-mcp/conform/impl/store"
)

func TestOAuth(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "OAuth Suite")
}

// epoch is where every manual clock starts.
var epoch = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

const deviceURN = "urn:ietf:params:oauth:grant-type:device_code"

// host is one reference-host instance under test: its own store, clock,
// server and HTTP listener.
type host struct {
	dir    string
	clock  *clock.Manual
	store  *store.Store
	server *oauth.Server
	mux    *http.ServeMux
	http   *httptest.Server
	opts   oauth.Options
	// browser carries the owner's session cookie, as a signed-in person's
	// browser would; every request of h.get and h.post* goes through it.
	browser *http.Client
}

// ownerSecret is the owner secret of every host of these specs.
const ownerSecret = "the-owner-secret-of-the-oauth-specs-0123456789"

// newHost starts an instance with a fresh data directory and, unless opts
// names another clock, the manual clock h.clock.
func newHost(opts ...oauth.Options) *host {
	h := &host{dir: GinkgoT().TempDir(), clock: clock.NewManual(epoch)}
	if len(opts) > 0 {
		h.opts = opts[0]
	}
	h.open()
	h.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mux.ServeHTTP(w, r)
	}))
	DeferCleanup(func() {
		h.http.Close()
		_ = h.store.Close()
	})
	h.browser = newBrowser()
	r := h.login(h.browser, ownerSecret, "/oauth/device")
	Expect(r.status).To(Equal(http.StatusSeeOther), r.body)
	return h
}

// newBrowser is an HTTP client with a cookie jar that does not follow
// redirects, so specs see each answer.
func newBrowser() *http.Client {
	jar, err := cookiejar.New(nil)
	Expect(err).NotTo(HaveOccurred())
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// login posts the owner sign-in form through c.
func (h *host) login(c *http.Client, secret, back string) reply {
	req, err := http.NewRequest(http.MethodPost, h.url("/oauth/login"),
		strings.NewReader(url.Values{"secret": {secret}, "return": {back}}.Encode()))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return doWith(c, req)
}

func (h *host) open() {
	var err error
	h.store, err = store.Open(filepath.Join(h.dir, "host.db"))
	Expect(err).NotTo(HaveOccurred())
	o := h.opts
	o.Store = h.store
	if o.Clock == nil {
		o.Clock = h.clock
	}
	Expect(h.store.Update(func(tx *store.Tx) error {
		return tx.PutOwnerSecret(store.DigestOf(ownerSecret))
	})).To(Succeed())
	h.server, err = oauth.New(o)
	Expect(err).NotTo(HaveOccurred())
	h.mux = http.NewServeMux()
	h.server.Register(h.mux)
}

// restart closes the store and opens it again behind a new server, as a
// process restart would, keeping the listener's address.
func (h *host) restart() {
	Expect(h.store.Close()).To(Succeed())
	h.open()
}

func (h *host) url(path string) string { return h.http.URL + path }

// reply is a decoded HTTP answer.
type reply struct {
	status int
	header http.Header
	body   string
	json   map[string]any
}

func (r reply) str(key string) string {
	s, _ := r.json[key].(string)
	return s
}

// do sends req with no cookie and no session, as curl would.
func do(req *http.Request) reply {
	return doWith(&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, req)
}

func doWith(client *http.Client, req *http.Request) reply {
	resp, err := client.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	r := reply{status: resp.StatusCode, header: resp.Header, body: string(body)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		Expect(json.Unmarshal(body, &r.json)).To(Succeed(), "body: %s", body)
	}
	return r
}

func (h *host) postJSON(path, body string) reply {
	req, err := http.NewRequest(http.MethodPost, h.url(path), strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	return do(req)
}

func (h *host) postRaw(path, body string) reply {
	req, err := http.NewRequest(http.MethodPost, h.url(path), strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return doWith(h.browser, req)
}

func (h *host) postForm(path string, form url.Values) reply { return h.postRaw(path, form.Encode()) }

func (h *host) get(path string) reply {
	req, err := http.NewRequest(http.MethodGet, h.url(path), nil)
	Expect(err).NotTo(HaveOccurred())
	return doWith(h.browser, req)
}

// anonGet fetches path with no session, as curl would.
func (h *host) anonGet(path string) reply {
	req, err := http.NewRequest(http.MethodGet, h.url(path), nil)
	Expect(err).NotTo(HaveOccurred())
	return do(req)
}

// anonPostForm posts a form with no session, as curl would.
func (h *host) anonPostForm(path string, form url.Values) reply {
	req, err := http.NewRequest(http.MethodPost, h.url(path), strings.NewReader(form.Encode()))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(req)
}

// register registers a client and returns its client_id.
func (h *host) register(uris ...string) string {
	if len(uris) == 0 {
		uris = []string{"http://127.0.0.1/callback"}
	}
	b, err := json.Marshal(map[string]any{"redirect_uris": uris, "client_name": "Test client"})
	Expect(err).NotTo(HaveOccurred())
	r := h.postJSON("/oauth/register", string(b))
	Expect(r.status).To(Equal(http.StatusCreated), r.body)
	return r.str("client_id")
}

// deviceStart is the answer of the device authorization endpoint.
type deviceStart struct{ clientID, deviceCode, userCode, verificationURI, complete string }

func (h *host) startDevice(clientID string) deviceStart {
	r := h.postForm("/oauth/device_authorization", url.Values{"client_id": {clientID}})
	Expect(r.status).To(Equal(http.StatusOK), r.body)
	return deviceStart{clientID, r.str("device_code"), r.str("user_code"), r.str("verification_uri"), r.str("verification_uri_complete")}
}

var csrfField = regexp.MustCompile(`<input type="hidden" name="csrf" value="([^"]+)">`)

// decide approves or denies a user code as the signed-in owner: GET the
// verification page with the code, take the csrf field, POST the decision.
func (h *host) decide(userCode, role, action string) reply {
	page := h.get("/oauth/device?user_code=" + url.QueryEscape(userCode))
	Expect(page.status).To(Equal(http.StatusOK), page.body)
	m := csrfField.FindStringSubmatch(page.body)
	Expect(m).To(HaveLen(2), page.body)
	return h.postForm("/oauth/device", url.Values{"user_code": {userCode}, "role": {role},
		"action": {action}, "csrf": {m[1]}})
}

// csrfFor opens the consent page for userCode as the signed-in owner and
// returns its form's csrf token.
func (h *host) csrfFor(userCode string) string {
	GinkgoHelper()
	page := h.get("/oauth/device?user_code=" + url.QueryEscape(userCode))
	m := csrfField.FindStringSubmatch(page.body)
	Expect(m).To(HaveLen(2), page.body)
	return m[1]
}

// poll asks for the device grant's token as the client the code was issued to.
func (h *host) poll(d deviceStart) reply {
	form := url.Values{"grant_type": {deviceURN}, "device_code": {d.deviceCode}}
	if d.clientID != "" {
		form.Set("client_id", d.clientID)
	}
	return h.postForm("/oauth/token", form)
}

// deviceCredential runs the whole device flow and returns the credential.
func (h *host) deviceCredential(role string) (clientID, token string) {
	clientID = h.register()
	d := h.startDevice(clientID)
	Expect(h.decide(d.userCode, role, "approve").status).To(Equal(http.StatusOK))
	r := h.poll(d)
	Expect(r.status).To(Equal(http.StatusOK), r.body)
	return clientID, r.str("access_token")
}

// expectOAuthError checks the RFC 6749 error shape of source section 7.3.
func expectOAuthError(r reply, status int, code, description string) {
	GinkgoHelper()
	Expect(r.status).To(Equal(status), r.body)
	Expect(r.header.Get("Content-Type")).To(Equal("application/json"))
	Expect(r.header.Get("Cache-Control")).To(Equal("no-store"))
	Expect(r.json).To(HaveKeyWithValue("error", code), r.body)
	if description != "" {
		Expect(r.json).To(HaveKeyWithValue("error_description", description), r.body)
	} else {
		Expect(r.str("error_description")).NotTo(BeEmpty())
	}
}

func ctx() context.Context { return context.Background() }
