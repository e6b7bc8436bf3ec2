package runner_test

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakehost"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
)

// oauthFeatureFiles are the features of the authorization side, in the
// order a run reads them (8_limits' probes run last anyway: @run-last).
var oauthFeatureFiles = []string{
	"3_time_windows.feature",
	"4_endpoints_oauth.feature",
	"7_3_authorization_flow.feature",
	"8_limits.feature",
}

func oauthFeatures() fs.FS { return featureFiles(oauthFeatureFiles) }

// oauthFakeRun is one run of the OAuth-side features against a fake host
// with its OAuth surface, a clock the harness moves and an approver.
type oauthFakeRun struct {
	host *fakehost.Host
	run  outcome.Run
}

// runOAuthFake serves a fake host with the given departures and a peer
// instance that accepts the credential the target must refuse.
func runOAuthFake(breaks []fakehost.OAuthBreak, mcpBreaks ...fakehost.Break) oauthFakeRun {
	return runOAuthFakeWith(fakehost.OAuthOptions{RegistrationLimit: 25, Breaks: breaks}, mcpBreaks...)
}

// runOAuthFakeWith is runOAuthFake with the fake's OAuth options given whole;
// the credential and the clock are filled in.
func runOAuthFakeWith(opts fakehost.OAuthOptions, mcpBreaks ...fakehost.Break) oauthFakeRun {
	clock := fakehost.NewManualClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	host := fakehost.New(fakehost.MCPOptions{Breaks: mcpBreaks, Other: opts.Other})
	opts.Host, opts.Clock = host, clock
	oa := fakehost.NewOAuth(opts)
	oa.Mount(host.Mux())
	srv := httptest.NewServer(host.Handler())
	DeferCleanup(srv.Close)

	// The peer instance issued host.PeerCredential(); it accepts that
	// credential as its own.
	peer := fakehost.New(fakehost.MCPOptions{})
	peerSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+host.PeerCredential() {
			r.Header.Set("Authorization", "Bearer "+peer.Credential())
		}
		peer.Handler().ServeHTTP(w, r)
	}))
	DeferCleanup(peerSrv.Close)

	p := profile.Default(srv.URL)
	p.Peer = &profile.Peer{Target: peerSrv.URL}
	p.RegistrationLimit = 40
	if opts.Other {
		p.Tools.Allowlisted = []string{"afs_read"}
		p.Tools.Privileged = []string{"afs_write", "afs_list", "afs_stat"}
	}
	t := &target.Target{
		Profile:        p,
		Credential:     host.Credential(),
		PeerCredential: host.PeerCredential(),
		Clock:          clock,
		Approve:        oa.Approve,
		HTTP:           &http.Client{Timeout: 10 * time.Second},
	}
	run, err := runner.RunFeatures(context.Background(), runner.Options{Target: t}, oauthFeatures())
	Expect(err).NotTo(HaveOccurred())
	return oauthFakeRun{host: host, run: run}
}

func resultOf(run outcome.Run, id string) outcome.Result {
	for _, r := range run.Results {
		if r.ID == id {
			return r
		}
	}
	Fail("no scenario " + id)
	return outcome.Result{}
}

// fakeDeviceCode matches the fake's device codes, which must never show.
var fakeDeviceCode = regexp.MustCompile(`device-\d+-[0-9a-f]{32}`)

var _ = Describe("the OAuth-side features against the fake host", func() {
	It("pass every scenario on the compliant fake", func() {
		r := runOAuthFake(nil)
		for _, res := range r.run.Results {
			Expect(res.Status).To(Equal(outcome.Passed), "%s: %s %v", res.ID, res.Reason, res.Departure)
		}
		Expect(r.run.Results).To(HaveLen(32))
		Expect(r.run.ExitCode()).To(Equal(outcome.ExitPassed))
	})

	const (
		time3  = "3_time_windows.feature: "
		ep4    = "4_endpoints_oauth.feature: "
		flow73 = "7_3_authorization_flow.feature: "
		lim8   = "8_limits.feature: "

		keptAtStart = time3 + "A credential from the device grant is kept to be used again at the end of the run"
		keptAtEnd   = lim8 + "The credential kept from the start of the run still works at its end"
	)
	// failsFor names, for each departure of the fake, the scenarios that
	// check the requirement it breaks.
	failsFor := map[fakehost.OAuthBreak][]string{
		fakehost.MissingURIsWrongCode: {
			flow73 + "A registration without redirect_uris is refused",
		},
		fakehost.MissingURIsWrongDescription: {
			flow73 + "A registration without redirect_uris is refused",
		},
		fakehost.AcceptsFTP: {
			flow73 + "A registration with an unsupported redirect URI is refused: ftp",
		},
		fakehost.RejectsIPv6Loopback: {
			flow73 + "A registration with a supported redirect URI returns a client_id: IPv6 loopback http",
		},
		fakehost.UnknownDeviceCode401: {
			time3 + "A device code is rejected as invalid_grant just after its five-minute window",
			flow73 + "An unknown device_code is refused as invalid_grant",
		},
		fakehost.UnknownDeviceCodeDescription: {
			time3 + "A device code is rejected as invalid_grant just after its five-minute window",
			flow73 + "An unknown device_code is refused as invalid_grant",
		},
		fakehost.WindowTooLong: {
			time3 + "A device code is rejected as invalid_grant just after its five-minute window",
		},
		fakehost.WindowTooShort: {
			time3 + "A device code is still accepted just inside its five-minute window",
		},
		fakehost.UnsupportedGrantInvalidGrant: {
			time3 + "A credential from the device grant is kept to be used again at the end of the run",
			time3 + "A device code is still accepted just inside its five-minute window",
			time3 + "A device code is rejected as invalid_grant just after its five-minute window",
			time3 + "A registration used in a completed authorization is kept after seven days",
			time3 + "A credential from the device grant still works after thirty days",
			ep4 + "The device grant issues a credential with no expiry and no refresh token, accepted in the Authorization header",
			flow73 + "An unknown device_code is refused as invalid_grant",
			flow73 + "Any other grant type is refused as unsupported: password",
			flow73 + "Any other grant type is refused as unsupported: client_credentials",
			flow73 + "Any other grant type is refused as unsupported: urn:ietf:params:oauth:grant-type:jwt-bearer",
			time3 + "A device code polled at once, before anyone approves it, is still pending",
		},
		fakehost.ErrorsAsHTML: {
			time3 + "A credential from the device grant is kept to be used again at the end of the run",
			time3 + "A device code is still accepted just inside its five-minute window",
			time3 + "A device code is rejected as invalid_grant just after its five-minute window",
			time3 + "An unused registration is removed after seven days and the client registers again",
			time3 + "A registration used in a completed authorization is kept after seven days",
			time3 + "A credential from the device grant still works after thirty days",
			ep4 + "The device grant issues a credential with no expiry and no refresh token, accepted in the Authorization header",
			flow73 + "A registration without redirect_uris is refused",
			flow73 + "A registration with an unsupported redirect URI is refused: http off the loopback",
			flow73 + "A registration with an unsupported redirect URI is refused: ftp",
			flow73 + "A registration with an unsupported redirect URI is refused: javascript",
			flow73 + "A registration with an unsupported redirect URI is refused: a relative reference",
			flow73 + "An unknown device_code is refused as invalid_grant",
			flow73 + "Any other grant type is refused as unsupported: password",
			flow73 + "Any other grant type is refused as unsupported: client_credentials",
			flow73 + "Any other grant type is refused as unsupported: urn:ietf:params:oauth:grant-type:jwt-bearer",
			flow73 + "The token endpoint supports the authorization_code grant",
			flow73 + "The token endpoint supports the refresh_token grant",
			flow73 + "Authorization-flow errors are served as JSON",
			time3 + "A device code polled at once, before anyone approves it, is still pending",
			flow73 + "A registration is refused when any one of its redirect URIs is unsupported",
		},
		fakehost.ErrorsAsText: {
			flow73 + "Authorization-flow errors are served as JSON",
		},
		fakehost.RefreshTokenIssued: {
			time3 + "A credential from the device grant is kept to be used again at the end of the run",
			time3 + "A registration used in a completed authorization is kept after seven days",
			time3 + "A credential from the device grant still works after thirty days",
			ep4 + "The device grant issues a credential with no expiry and no refresh token, accepted in the Authorization header",
		},
		fakehost.ExpiresInIssued: {
			time3 + "A credential from the device grant is kept to be used again at the end of the run",
			time3 + "A registration used in a completed authorization is kept after seven days",
			time3 + "A credential from the device grant still works after thirty days",
			ep4 + "The device grant issues a credential with no expiry and no refresh token, accepted in the Authorization header",
		},
		fakehost.NeverThrottled: {
			lim8 + "A client that registers at every start is eventually throttled",
		},
		fakehost.UnusedRegistrationsKept: {
			time3 + "An unused registration is removed after seven days and the client registers again",
		},
		fakehost.UsedRegistrationsRemoved: {
			time3 + "A registration used in a completed authorization is kept after seven days",
		},
		fakehost.MetadataMissing: {
			ep4 + "The resource metadata document answers",
			ep4 + "The resource metadata named by the 401 challenge answers",
		},
		fakehost.KnownGrantsUnsupported: {
			flow73 + "The token endpoint supports the authorization_code grant",
			flow73 + "The token endpoint supports the refresh_token grant",
		},
		fakehost.CredentialExpires: {
			time3 + "A credential from the device grant still works after thirty days",
			lim8 + "The credential kept from the start of the run still works at its end",
		},
		fakehost.LifetimeTooShort: {
			time3 + "An unused registration still works just before seven days",
		},
		fakehost.ThrottleLocksOutClients: {
			lim8 + "A client that registered once keeps its client_id once the address is throttled",
		},
		fakehost.RedirectDescriptionReworded: {
			flow73 + "A registration with an unsupported redirect URI is refused: http off the loopback",
			flow73 + "A registration with an unsupported redirect URI is refused: ftp",
			flow73 + "A registration with an unsupported redirect URI is refused: javascript",
			flow73 + "A registration with an unsupported redirect URI is refused: a relative reference",
			flow73 + "A registration is refused when any one of its redirect URIs is unsupported",
		},
		fakehost.UnsupportedGrantVague: {
			flow73 + "Any other grant type is refused as unsupported: password",
			flow73 + "Any other grant type is refused as unsupported: client_credentials",
			flow73 + "Any other grant type is refused as unsupported: urn:ietf:params:oauth:grant-type:jwt-bearer",
		},
		fakehost.AcceptsHTTPOffLoopback: {
			flow73 + "A registration with an unsupported redirect URI is refused: http off the loopback",
			flow73 + "A registration is refused when any one of its redirect URIs is unsupported",
		},
		fakehost.AcceptsJavascript: {
			flow73 + "A registration with an unsupported redirect URI is refused: javascript",
		},
		fakehost.AcceptsRelative: {
			flow73 + "A registration with an unsupported redirect URI is refused: a relative reference",
		},
		fakehost.RejectsHTTPS: {
			flow73 + "A registration with a supported redirect URI returns a client_id: https",
		},
		fakehost.RejectsIPv4Loopback: {
			time3 + "A credential from the device grant is kept to be used again at the end of the run",
			time3 + "A device code is still accepted just inside its five-minute window",
			time3 + "A device code is rejected as invalid_grant just after its five-minute window",
			time3 + "An unused registration still works just before seven days",
			time3 + "An unused registration is removed after seven days and the client registers again",
			time3 + "A registration used in a completed authorization is kept after seven days",
			time3 + "A credential from the device grant still works after thirty days",
			ep4 + "The device grant issues a credential with no expiry and no refresh token, accepted in the Authorization header",
			flow73 + "A registration with a supported redirect URI returns a client_id: IPv4 loopback http",
			flow73 + "An unknown device_code is refused as invalid_grant",
			flow73 + "Any other grant type is refused as unsupported: password",
			flow73 + "Any other grant type is refused as unsupported: client_credentials",
			flow73 + "Any other grant type is refused as unsupported: urn:ietf:params:oauth:grant-type:jwt-bearer",
			flow73 + "The token endpoint supports the authorization_code grant",
			flow73 + "The token endpoint supports the refresh_token grant",
			flow73 + "Authorization-flow errors are served as JSON",
			lim8 + "A client that registers at every start is eventually throttled",
			lim8 + "A client that registered once keeps its client_id once the address is throttled",
			time3 + "A device code polled at once, before anyone approves it, is still pending",
		},
		fakehost.RejectsPrivateUse: {
			flow73 + "A registration with a supported redirect URI returns a client_id: a private-use scheme",
		},
		fakehost.ExpiredTokenEarly: {
			time3 + "A device code is still accepted just inside its five-minute window",
		},
		fakehost.FirstRedirectURIOnly: {
			flow73 + "A registration is refused when any one of its redirect URIs is unsupported",
		},
		fakehost.PendingCodeInvalid: {
			time3 + "A device code is still accepted just inside its five-minute window",
			time3 + "A device code polled at once, before anyone approves it, is still pending",
		},
	}

	// expectFailure checks that the scenario failed for the host's departure,
	// with expected, actual and an exchange that shows no secret.
	expectFailure := func(r oauthFakeRun, scenario string) {
		res := resultOf(r.run, scenario)
		Expect(res.Status).To(Equal(outcome.Failed), "%s: %s", res.ID, res.Reason)
		d := res.Departure
		Expect(d.Expected).NotTo(BeEmpty())
		Expect(d.Actual).NotTo(BeEmpty())
		Expect(d.Exchanges).NotTo(BeEmpty())
		shown := d.Expected + d.Actual
		for _, ex := range d.Exchanges {
			shown += ex.String()
		}
		Expect(shown).NotTo(ContainSubstring(r.host.Credential()))
		Expect(fakeDeviceCode.FindString(shown)).To(BeEmpty())
		for _, other := range r.run.Results {
			Expect(other.Status).NotTo(Equal(outcome.HarnessError), "%s: %s", other.ID, other.Reason)
		}
	}

	for _, brk := range fakehost.OAuthBreaks() {
		It("fails the scenario of the requirement that "+string(brk)+" breaks", func() {
			scenarios, ok := failsFor[brk]
			Expect(ok).To(BeTrue(), "no scenario named for the departure %s", brk)
			r := runOAuthFake([]fakehost.OAuthBreak{brk})
			for _, scenario := range scenarios {
				expectFailure(r, scenario)
			}
			for _, res := range r.run.Results {
				switch {
				case slices.Contains(scenarios, res.ID):
				case res.ID == keptAtEnd && slices.Contains(scenarios, keptAtStart):
					// Nothing was kept to use again.
					Expect(res.Status).To(Equal(outcome.NotRun), res.ID)
				default:
					Expect(res.Status).To(Equal(outcome.Passed), "%s: %s %v", res.ID, res.Reason, res.Departure)
				}
			}
		})
	}

	It("say which device grant name the host took, learned by trying when no metadata advertises one", func() {
		r := runOAuthFake(nil)
		res := resultOf(r.run, flow73+"An unknown device_code is refused as invalid_grant")
		Expect(res.Observed).To(ContainElement(`the host took the device grant as "device_code" (the URN was answered unsupported_grant_type)`))
		kept := resultOf(r.run, keptAtEnd)
		Expect(kept.Observed).To(ContainElement(ContainSubstring("observed to live at least")))
	})

	It("pass every scenario on a fake that chooses differently where the source is silent", func() {
		r := runOAuthFakeWith(fakehost.OAuthOptions{RegistrationLimit: 25, Other: true})
		for _, res := range r.run.Results {
			Expect(res.Status).To(Equal(outcome.Passed), "%s: %s %v", res.ID, res.Reason, res.Departure)
		}
		res := resultOf(r.run, flow73+"An unknown device_code is refused as invalid_grant")
		Expect(res.Observed).To(ContainElement(`the host took the device grant as "urn:ietf:params:oauth:grant-type:device_code" (advertised in grant_types_supported)`))
		Expect(r.run.ExitCode()).To(Equal(outcome.ExitPassed))
	})

	It("names the key to raise when every registration goes through unthrottled", func() {
		r := runOAuthFake([]fakehost.OAuthBreak{fakehost.NeverThrottled})
		d := resultOf(r.run, lim8+"A client that registers at every start is eventually throttled").Departure
		Expect(d.Actual).To(ContainSubstring("went through unthrottled"))
		Expect(d.Actual).To(ContainSubstring("raise registration_limit (now 40)"))
	})

	It("fails the instance-binding scenario when the target accepts the peer's credential", func() {
		expectFailure(runOAuthFake(nil, fakehost.PeerCredentialAccepted),
			ep4+"A credential its issuing instance accepts is refused by another instance")
	})

	It("does not run, and never fails, a scenario whose registration the host throttles", func() {
		r := runOAuthFakeWith(fakehost.OAuthOptions{RegistrationLimit: 2})
		notRun := 0
		for _, res := range r.run.Results {
			Expect(res.Status).NotTo(Equal(outcome.Failed), "%s: %v", res.ID, res.Departure)
			Expect(res.Status).NotTo(Equal(outcome.HarnessError), "%s: %s", res.ID, res.Reason)
			if res.Status == outcome.NotRun {
				notRun++
				Expect(res.Reason).To(ContainSubstring("registration throttled"))
				Expect(res.Reason).To(ContainSubstring("Retry-After"))
			}
		}
		Expect(notRun).To(BeNumerically(">", 0))
		Expect(r.run.ExitCode()).To(Equal(outcome.ExitIncomplete))
	})

	It("counts a kept client locked out by the throttle as a derived SHOULD: tolerated without --strict", func() {
		r := runOAuthFake([]fakehost.OAuthBreak{fakehost.ThrottleLocksOutClients})
		res := resultOf(r.run, lim8+"A client that registered once keeps its client_id once the address is throttled")
		Expect(res.Status).To(Equal(outcome.Failed))
		Expect(r.run.Tolerated(res)).To(BeTrue())
		Expect(r.run.ExitCode()).To(Equal(outcome.ExitPassed))
	})

	It("counts a JSON content type departure as a SHOULD: tolerated without --strict", func() {
		r := runOAuthFake([]fakehost.OAuthBreak{fakehost.ErrorsAsText})
		res := resultOf(r.run, "7_3_authorization_flow.feature: Authorization-flow errors are served as JSON")
		Expect(r.run.Tolerated(res)).To(BeTrue())
		Expect(strings.Join(res.Tags, " ")).To(ContainSubstring("@OAUTH-8"))
	})
})
