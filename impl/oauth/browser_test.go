package oauth_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/oauth2"

	"github.com/conform-mcp/conform/impl/clock"
	"github.com/conform-mcp/conform/impl/oauth"
	"github.com/conform-mcp/conform/internal/browser"
)

// startChromium starts a headless Chromium for one spec and returns its
// browsing context; it stops with the spec.
func startChromium(sctx SpecContext) context.Context {
	path, err := browser.Chromium()
	if err != nil {
		Fail("the browser test needs Chromium: " + err.Error())
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Context(sctx),
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(GinkgoT().TempDir()),
	)
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	DeferCleanup(func() {
		cancelBrowser()
		cancelAlloc()
	})
	return browser
}

// A person in a real browser opens the verification URI, signs in as the
// owner, types the user code and approves, while the device polls with
// golang.org/x/oauth2. The browser sends Origin and Sec-Fetch-Site with every
// post, so the same-origin checks are met as a person meets them. Without a
// browser this fails: a consent page nobody has clicked is not tested.
var _ = Describe("Device consent in a real browser", Label("browser"), func() {
	It("lets the owner sign in, type the code and approve, and the polling device gets its credential", func(sctx SpecContext) {
		h := newHost(oauth.Options{Clock: clock.System{}})
		cfg := &oauth2.Config{ClientID: h.register(), Endpoint: oauth2.Endpoint{
			DeviceAuthURL: h.url("/oauth/device_authorization"),
			TokenURL:      h.url("/oauth/token"),
			AuthStyle:     oauth2.AuthStyleInParams,
		}}
		da, err := cfg.DeviceAuth(sctx)
		Expect(err).NotTo(HaveOccurred())

		type result struct {
			tok *oauth2.Token
			err error
		}
		done := make(chan result, 1)
		go func() {
			tok, err := cfg.DeviceAccessToken(sctx, da)
			done <- result{tok, err}
		}()

		browser := startChromium(sctx)

		Expect(chromedp.Do(browser,
			chromedp.Navigate(da.VerificationURI),
			chromedp.WaitVisible(chromedp.ID("owner_secret")),
			chromedp.SendKeys(chromedp.ID("owner_secret"), ownerSecret),
			chromedp.Click(chromedp.ID("sign_in")),
			chromedp.WaitVisible(chromedp.ID("user_code")),
			chromedp.SendKeys(chromedp.ID("user_code"), strings.ToLower(da.UserCode)),
			chromedp.Click(chromedp.ID("continue")),
			chromedp.WaitVisible(chromedp.ID("approve")),
		)).To(Succeed())
		shownClient, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("client_id")))
		Expect(err).NotTo(HaveOccurred())
		Expect(chromedp.Do(browser,
			chromedp.SetValue(chromedp.ID("role"), "admin"),
			chromedp.Click(chromedp.ID("approve")),
			chromedp.WaitVisible(chromedp.ID("message")),
		)).To(Succeed())
		message, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("message")))
		Expect(err).NotTo(HaveOccurred())
		Expect(shownClient).To(Equal(cfg.ClientID))
		Expect(message).To(ContainSubstring("approved"))

		var got result
		Eventually(done).WithTimeout(30 * time.Second).Should(Receive(&got))
		Expect(got.err).NotTo(HaveOccurred())
		c, err := h.server.Verify(sctx, got.tok.AccessToken)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.ClientID).To(Equal(cfg.ClientID))
		Expect(c.Role).To(Equal("admin"))
	}, SpecTimeout(2*time.Minute))

	// A page on another origin of the same site (127.0.0.1 on another
	// port) posts the owner's own, valid form: the session cookie travels
	// (SameSite=Strict allows same-site), the token is right, and only the
	// browser's Sec-Fetch-Site tells the host where the post came from.
	It("refuses an approval posted from another origin, even with the owner's session and form", func(sctx SpecContext) {
		h := newHost(oauth.Options{Clock: clock.System{}})
		d := h.startDevice(h.register())
		browser := startChromium(sctx)
		Expect(chromedp.Do(browser,
			chromedp.Navigate(h.url("/oauth/device?user_code="+d.userCode)),
			chromedp.WaitVisible(chromedp.ID("owner_secret")),
			chromedp.SendKeys(chromedp.ID("owner_secret"), ownerSecret),
			chromedp.Click(chromedp.ID("sign_in")),
			chromedp.WaitVisible(chromedp.ID("approve")),
		)).To(Succeed())
		field, err := chromedp.Run(browser, chromedp.AttributeValue(`input[name="csrf"]`, "value"))
		Expect(err).NotTo(HaveOccurred())
		csrf := field.Value
		Expect(csrf).NotTo(BeEmpty())

		attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><form method="post" action="%s">`+
				`<input type="hidden" name="user_code" value="%s"><input type="hidden" name="csrf" value="%s">`+
				`<input type="hidden" name="role" value="owner"><button id="go" name="action" value="approve">Win a prize</button></form>`,
				html.EscapeString(h.url("/oauth/device")), html.EscapeString(d.userCode), html.EscapeString(csrf))
		}))
		DeferCleanup(attacker.Close)
		Expect(chromedp.Do(browser,
			chromedp.Navigate(attacker.URL),
			chromedp.WaitVisible(chromedp.ID("go")),
			chromedp.Click(chromedp.ID("go")),
			chromedp.WaitVisible(chromedp.ID("message")),
		)).To(Succeed())
		message, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("message")))
		Expect(err).NotTo(HaveOccurred())
		Expect(message).To(ContainSubstring("another site"))
		expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
	}, SpecTimeout(2*time.Minute))
})
