package login_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakehost"
	"github.com/conform-mcp/conform/harness/login"
	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
)

// screen is the person's terminal: it keeps what login prints.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

var userCode = regexp.MustCompile(`enter the code (\S+)`)

// person reads the user code off the screen and approves it after a while,
// so that login polls at least once while the sign-in is pending.
func person(ctx context.Context, s *screen, oa *fakehost.OAuth, delay time.Duration) {
	go func() {
		defer GinkgoRecover()
		for ctx.Err() == nil {
			if m := userCode.FindStringSubmatch(s.String()); m != nil {
				time.Sleep(delay)
				Expect(oa.Approve(ctx, m[1])).To(Succeed())
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
}

var _ = Describe("conform login", func() {
	var (
		host          *fakehost.Host
		oa            *fakehost.OAuth
		srv           *httptest.Server
		dir           string
		registrations atomic.Int32
		ctx           context.Context
	)

	BeforeEach(func() {
		host = fakehost.New(fakehost.MCPOptions{})
		oa = fakehost.NewOAuth(fakehost.OAuthOptions{Host: host, Interval: 1})
		oa.Mount(host.Mux())
		registrations.Store(0)
		srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && r.URL.Path == "/oauth/register" {
				registrations.Add(1)
			}
			host.Handler().ServeHTTP(w, r)
		}))
		DeferCleanup(srv.Close)
		dir = GinkgoT().TempDir()
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
		DeferCleanup(cancel)
	})

	signIn := func(delay time.Duration) (string, *screen, error) {
		out := &screen{}
		person(ctx, out, oa, delay)
		cred, err := login.Run(ctx, login.Options{Target: srv.URL + "/", Out: out, StateDir: dir, HTTP: srv.Client()})
		return cred, out, err
	}

	It("registers, shows the user code and verification URI, waits for approval and stores the credential", func() {
		cred, out, err := signIn(1500 * time.Millisecond)
		Expect(err).NotTo(HaveOccurred())
		expectAccepted(srv, cred)
		Expect(out.String()).To(ContainSubstring("visit " + srv.URL + "/device"))
		Expect(out.String()).To(MatchRegexp(`or open \S+\?user_code=FAKE-`))
		Expect(registrations.Load()).To(BeEquivalentTo(1))

		stored, ok := login.StoredCredential(dir, srv.URL)
		Expect(ok).To(BeTrue())
		Expect(stored).To(Equal(cred))
		info, err := os.Stat(filepath.Join(dir, "login.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o600)))
	})

	It("signs in to a host that takes the device grant only by RFC 8628's name, which its metadata advertises", func() {
		host = fakehost.New(fakehost.MCPOptions{Other: true})
		oa = fakehost.NewOAuth(fakehost.OAuthOptions{Host: host, Interval: 1, Other: true})
		oa.Mount(host.Mux())
		cred, _, err := signIn(0)
		Expect(err).NotTo(HaveOccurred())
		expectAccepted(srv, cred)
	})

	It("registers once per target and keeps the client_id for later logins (source 7.3)", func() {
		_, _, err := signIn(0)
		Expect(err).NotTo(HaveOccurred())
		_, _, err = signIn(0)
		Expect(err).NotTo(HaveOccurred())
		Expect(registrations.Load()).To(BeEquivalentTo(1))
	})

	It("registers again, once, when the host no longer knows the kept client_id (source 3)", func() {
		Expect(os.WriteFile(filepath.Join(dir, "login.json"), []byte(`{"`+srv.URL+`":{"client_id":"removed-after-seven-days"}}`), 0o600)).To(Succeed())
		cred, out, err := signIn(0)
		Expect(err).NotTo(HaveOccurred())
		expectAccepted(srv, cred)
		Expect(out.String()).To(ContainSubstring("registering again"))
		Expect(registrations.Load()).To(BeEquivalentTo(1))
	})

	It("keeps credentials apart by target", func() {
		_, _, err := signIn(0)
		Expect(err).NotTo(HaveOccurred())
		_, ok := login.StoredCredential(dir, "http://127.0.0.1:1")
		Expect(ok).To(BeFalse())
	})

	It("says when the host throttles the registration", func() {
		oa = fakehost.NewOAuth(fakehost.OAuthOptions{Host: host, Interval: 1, RegistrationLimit: 1})
		mux := http.NewServeMux()
		oa.Mount(mux)
		throttling := httptest.NewServer(mux)
		DeferCleanup(throttling.Close)
		// Another client from this address spends the one allowed registration.
		resp, err := throttling.Client().Post(throttling.URL+"/oauth/register", "application/json",
			bytes.NewBufferString(`{"redirect_uris":["https://app.example/cb"]}`))
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusCreated))
		_, err = login.Run(ctx, login.Options{Target: throttling.URL, StateDir: dir, HTTP: throttling.Client()})
		Expect(err).To(MatchError(ContainSubstring("throttles registrations")))
	})

	It("signs in at an authorization server on another origin when the endpoints are absolute URLs", func() {
		resource := fakehost.New(fakehost.MCPOptions{})
		resourceSrv := httptest.NewServer(resource.Handler())
		DeferCleanup(resourceSrv.Close)
		as := fakehost.NewOAuth(fakehost.OAuthOptions{Host: resource, Interval: 1})
		mux := http.NewServeMux()
		as.Mount(mux)
		asSrv := httptest.NewServer(mux)
		DeferCleanup(asSrv.Close)

		out := &screen{}
		person(ctx, out, as, 0)
		cred, err := login.Run(ctx, login.Options{
			Target: resourceSrv.URL,
			Endpoints: oauthclient.Endpoints{
				Register:            asSrv.URL + "/oauth/register",
				Token:               asSrv.URL + "/oauth/token",
				DeviceAuthorization: asSrv.URL + "/oauth/device_authorization",
			},
			Out: out, StateDir: dir,
		})
		Expect(err).NotTo(HaveOccurred())
		expectAccepted(resourceSrv, cred)
	})

	It("stores nothing it was not given", func() {
		_, ok := login.StoredCredential(dir, srv.URL)
		Expect(ok).To(BeFalse())
	})
})

// expectAccepted checks that the host takes cred for a privileged call, which
// an anonymous caller is refused (source 5).
func expectAccepted(srv *httptest.Server, cred string) {
	GinkgoHelper()
	Expect(cred).NotTo(BeEmpty())
	r, err := mcpclient.New(srv.URL+"/mcp", srv.Client()).Call(context.Background(), "Bearer "+cred, "tools/call",
		map[string]any{"name": "afs_write", "arguments": map[string]any{"path": "/overlay/scratch.txt", "content": "x"}})
	Expect(err).NotTo(HaveOccurred())
	Expect(r.Status).To(Equal(http.StatusOK))
}
