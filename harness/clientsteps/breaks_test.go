package clientsteps_test

import (
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeclient"
	"github.com/conform-mcp/conform/harness/outcome"
)

// The client scenarios, by name.
const (
	cliChallengeURL   = "The client finds the protected resource metadata at the URL the challenge names"
	cliWellKnownOrder = "Without resource_metadata in the challenge, the client tries the well-known URIs in the listed order"
	cliServerOrder    = "The client tries the authorization server metadata well-known URIs in the listed order"
	cliOtherIssuer    = "The client does not use authorization server metadata that names another issuer"
	cliNoPKCE         = "The client refuses to proceed when the metadata has no code_challenge_methods_supported"
	cliS256           = "The client uses PKCE with S256 and redeems the code with its verifier"
	cliResource       = "The client names the protected resource metadata's resource in its authorization and token requests"
	cliScope          = "The client asks for every scope the challenge names, even one scopes_supported does not list"
	cliStepUp         = "On 403 insufficient_scope the client asks for the challenge's scopes and calls again"
	cliIssWrong       = "The client sends no token request after an authorization response whose iss is another issuer's"
	cliIssMissing     = "The client sends no token request after an authorization response without the iss its server advertises"
	cliIssSlash       = "The client sends no token request after an authorization response whose iss is the issuer with a trailing slash"
	cliEveryRequest   = "Once it holds a token, the client sends it in the Authorization header of every request"
	cliQuery          = "The client never puts an access token in a URI query"
	cliOtherServer    = "The client sends a second server no token the first server's authorization server issued"
	cliHeaders        = "A client speaking 2026-07-28 sends the protocol version and method headers on every POST"
	cliVersionMatch   = "A client's MCP-Protocol-Version header names the protocol version its body's _meta carries"
	cliOtherResource  = "The client does not use protected resource metadata that names another resource"
	cliUnknownMembers = "The client ignores a parameter or member it does not know in the authorization and token responses"
	cliNoRefresh      = "A client that desires refresh tokens and holds none obtains a new token when its token is refused"
	cliAppType        = "The client names an application_type when it registers dynamically"
	cliRebind         = "The client uses no client_id of one authorization server with another"
	cliStateSent      = "The client sends a state in its authorization request"
	cliStateWrong     = "The client discards an authorization response whose state is not the one it sent"
	cliRefreshRes     = "A refresh request names the protected resource metadata's resource"
	cliRefreshGrant   = "A client that refreshes registered with refresh_token in its grant_types"
	cliKeepsGranted   = "On step-up the client asks for the scopes it was granted alongside those the 403 names"
	cliFreshChallenge = "The client sends a new code_challenge with each authorization request"
	cliDocURL         = "A client names itself by an https URL with a path when it uses a client ID metadata document"
	cliDocContent     = "The client ID metadata document holds the client_id that names it, a client_name and redirect_uris"
	cliGivenFirst     = "A client given a client registered beforehand or a metadata document uses it rather than registering"
	cliDocSupport     = "A client names itself by no client ID metadata document when the authorization server does not advertise them"
	cliSecretOnce     = "A confidential client authenticates each token request by exactly one method, never in the URI"
	cliLoopback       = "The client's loopback redirect URIs name a loopback IP literal, not localhost"

	cliFollow      = "After a 401 the client follows the challenge to the protected resource metadata"
	cliRegister    = "The client registers once and keeps its client_id for its next start"
	cliIsError     = "A client run to call a tool whose result is isError true ends with a failure status"
	cliRestart     = "After invalid_grant on its device code the client starts the device flow again"
	cliSignInAgain = "When its credential stops working, the client signs in again"
	cliHeaderOnly  = "The client presents its credential in the Authorization header and nowhere else"
)

// clientDeparture is what one fakeclient Break must do to its pack's run:
// fail exactly the scenarios in fails, leave those in notRun not run
// (a flow the break stops leaves them nothing to judge, or fails their
// control), and pass every other.
type clientDeparture struct {
	pack string
	// document runs the client with a client ID metadata document the
	// profile names too; without one, the scenarios of other ways to name
	// a client are not applicable, and expected not run.
	document bool
	// confidential runs the client as a confidential client registered
	// beforehand, which the profile names with its secret.
	confidential bool
	fails        []string
	notRun       []string
	// actual is a piece of the first failure's message.
	actual string
}

var clientDepartures = map[fakeclient.Break]clientDeparture{
	fakeclient.ChallengeMetadataIgnored: {pack: "mcp-authorization", fails: []string{cliChallengeURL}, actual: "/.well-known/oauth-protected-resource/mcp"},
	fakeclient.RootMetadataFirst:        {pack: "mcp-authorization", fails: []string{cliWellKnownOrder}, actual: "/.well-known/oauth-protected-resource, then"},
	fakeclient.OpenIDFirst:              {pack: "mcp-authorization", fails: []string{cliServerOrder}, actual: "/tenant/.well-known/openid-configuration"},
	fakeclient.IssuerNotChecked:         {pack: "mcp-authorization", fails: []string{cliOtherIssuer}, actual: "/tenant/register"},
	fakeclient.PKCENotChecked:           {pack: "mcp-authorization", fails: []string{cliNoPKCE}, actual: "/tenant/authorize"},
	// The scripted authorization server refuses plain, so no flow
	// completes: the scenarios that judge a call fail, those that judge a
	// token or a refusal (after the control) are not run.
	fakeclient.PlainPKCE: {pack: "mcp-authorization",
		fails: []string{cliS256, cliChallengeURL, cliServerOrder, cliHeaders},
		notRun: []string{cliOtherIssuer, cliNoPKCE, cliIssWrong, cliIssMissing, cliStepUp, cliEveryRequest, cliQuery, cliOtherServer,
			cliStateWrong, cliRefreshRes, cliRefreshGrant, cliKeepsGranted, cliFreshChallenge, cliIssSlash,
			cliOtherResource, cliUnknownMembers, cliNoRefresh},
		actual: `code_challenge_method="plain"`},
	fakeclient.ResourceOmitted: {pack: "mcp-authorization", fails: []string{cliResource}, actual: `resource=""`},
	// Asking for every scope at first, it never meets the 403 the step-up
	// scenarios judge, nor makes a second authorization request.
	fakeclient.MetadataScopes: {pack: "mcp-authorization", fails: []string{cliScope}, notRun: []string{cliStepUp, cliKeepsGranted, cliFreshChallenge}, actual: `scope="mcp:tools mcp:write"`},
	// Not authorizing again, it leaves nothing to judge in the scopes or
	// the code_challenge of a second authorization request.
	fakeclient.NoStepUp:               {pack: "mcp-authorization", fails: []string{cliStepUp}, notRun: []string{cliKeepsGranted, cliFreshChallenge}, actual: "no such request"},
	fakeclient.IssNotChecked:          {pack: "mcp-authorization", fails: []string{cliIssWrong, cliIssMissing, cliIssSlash}, actual: "/tenant/token"},
	fakeclient.IssNormalized:          {pack: "mcp-authorization", fails: []string{cliIssSlash}, actual: "/tenant/token"},
	fakeclient.RequestWithoutToken:    {pack: "mcp-authorization", fails: []string{cliEveryRequest}, actual: "a request without it"},
	fakeclient.TokenInQuery:           {pack: "mcp-authorization", fails: []string{cliQuery}, actual: "access_token=****"},
	fakeclient.TokenShared:            {pack: "mcp-authorization", fails: []string{cliOtherServer}, actual: "one was sent with POST"},
	fakeclient.ModernHeaderMissing:    {pack: "mcp-authorization", fails: []string{cliHeaders}, actual: `""`},
	fakeclient.VersionHeaderMismatch:  {pack: "mcp-authorization", fails: []string{cliVersionMatch}, actual: `"2025-11-25"`},
	fakeclient.ApplicationTypeOmitted: {pack: "mcp-authorization", fails: []string{cliAppType}, actual: "none"},
	fakeclient.ClientIDByServer:       {pack: "mcp-authorization", fails: []string{cliRebind}, actual: "the first one's client_id"},
	fakeclient.StateNotChecked:        {pack: "mcp-authorization", fails: []string{cliStateWrong}, actual: "/tenant/token"},
	// Sending no state, it has none to verify either.
	fakeclient.StateOmitted:           {pack: "mcp-authorization", fails: []string{cliStateSent, cliStateWrong}, actual: "none"},
	fakeclient.RefreshWithoutResource: {pack: "mcp-authorization", fails: []string{cliRefreshRes}, actual: "resource="},
	// Registering without refresh_token, it shows no desire for refresh
	// tokens, which is what makes a client's want of one judged.
	fakeclient.RefreshGrantUnregistered: {pack: "mcp-authorization", fails: []string{cliRefreshGrant}, notRun: []string{cliNoRefresh}, actual: "[authorization_code]"},
	fakeclient.GrantedScopesDropped:     {pack: "mcp-authorization", fails: []string{cliKeepsGranted}, actual: `scope="mcp:write"`},
	fakeclient.ChallengeReused:          {pack: "mcp-authorization", fails: []string{cliFreshChallenge}, actual: "the code_challenge of an earlier one again"},
	fakeclient.ResourceNotChecked:       {pack: "mcp-authorization", fails: []string{cliOtherResource}, actual: "/.well-known/oauth-authorization-server/tenant"},
	fakeclient.UnknownMembersRefused:    {pack: "mcp-authorization", fails: []string{cliUnknownMembers}, actual: "none"},
	fakeclient.RefreshAssumed:           {pack: "mcp-authorization", fails: []string{cliNoRefresh}, actual: "there is no refresh token"},
	// Registering, it presents no document to judge, nor one in the control.
	fakeclient.RegistersFirst: {pack: "mcp-authorization", document: true, fails: []string{cliGivenFirst},
		notRun: []string{cliDocURL, cliDocContent, cliDocSupport, cliSecretOnce}, actual: "a registration request"},
	// Never registering, it leaves the scenarios of registration not applicable.
	fakeclient.CIMDUnchecked: {pack: "mcp-authorization", document: true, fails: []string{cliDocSupport},
		notRun: notDocument, actual: "client_id https://127.0.0.1:"},
	fakeclient.LocalhostRedirect: {pack: "mcp-authorization", fails: []string{cliLoopback}, actual: "http://localhost/callback"},
	fakeclient.SecretTwice: {pack: "mcp-authorization", confidential: true, fails: []string{cliSecretOnce},
		notRun: append(slices.Clone(documentScenarios), registrationScenarios...), actual: "client_secret_basic and client_secret_post"},

	fakeclient.ChallengeNotFollowed:   {pack: "source", fails: []string{cliFollow}, actual: "/oauth/register"},
	fakeclient.RegistersEveryStart:    {pack: "source", fails: []string{cliRegister}, actual: "/oauth/register"},
	fakeclient.IsErrorIgnored:         {pack: "source", fails: []string{cliIsError}, actual: "exit status 0"},
	fakeclient.DeviceFlowNotRestarted: {pack: "source", fails: []string{cliRestart}, actual: "none"},
	// The registration scenario's second start must sign in again to show
	// the client_id it kept; without a sign-in it has nothing to judge.
	fakeclient.NoSignInAgain:     {pack: "source", fails: []string{cliSignInAgain}, notRun: []string{cliRegister}, actual: "none"},
	fakeclient.CredentialInQuery: {pack: "source", fails: []string{cliHeaderOnly}, actual: "in the query or body"},
}

// breakRuns is how many breaks' runs go at once: each is a client process
// talking to scripted servers on loopback, mostly waiting, so a few at once
// take the suite's time down without crowding two cores.
const breakRuns = 4

// breakVerdicts is one break's run of its pack.
type breakVerdicts struct {
	got map[string]verdict
	err error
}

var _ = Describe("each fakeclient break", Ordered, func() {
	It("has a departure in the table", func() {
		for _, b := range fakeclient.Breaks() {
			Expect(clientDepartures).To(HaveKey(b))
		}
		Expect(clientDepartures).To(HaveLen(len(fakeclient.Breaks())))
	})

	// Every break's run, a few at once; each spec below judges one.
	runs := map[fakeclient.Break]*breakVerdicts{}
	BeforeAll(func() {
		doc := serveDocument(true, compliantDocument)
		var wg sync.WaitGroup
		sem := make(chan struct{}, breakRuns)
		for _, b := range fakeclient.Breaks() {
			cfg, r := config(clientDepartures[b].pack, string(b)), &breakVerdicts{}
			if clientDepartures[b].document {
				cfg = withDocument(cfg, doc)
			}
			if clientDepartures[b].confidential {
				cfg = withConfidential(cfg)
			}
			runs[b] = r
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				r.got, r.err = runPack(cfg)
			})
		}
		wg.Wait()
	})

	for _, b := range fakeclient.Breaks() {
		d := clientDepartures[b]
		if d.pack == "mcp-authorization" && !d.document && !d.confidential {
			d.notRun = append(slices.Clone(d.notRun), notGiven...)
		}
		It("fails exactly its scenarios: "+string(b), func() {
			got, err := runs[b].got, runs[b].err
			Expect(err).NotTo(HaveOccurred())
			Expect(got).NotTo(BeEmpty())
			var first string
			for name, v := range got {
				switch {
				case slices.Contains(d.fails, name):
					Expect(v.status).To(Equal(outcome.Failed), "%s: %s", name, v.why)
					if name == d.fails[0] {
						first = v.why
					}
				case slices.Contains(d.notRun, name):
					Expect(v.status).To(Equal(outcome.NotRun), "%s: %s", name, v.why)
				default:
					Expect(v.status).To(Equal(outcome.Passed), "%s: %s", name, v.why)
				}
			}
			for _, name := range append(slices.Clone(d.fails), d.notRun...) {
				Expect(got).To(HaveKey(name))
			}
			Expect(strings.Contains(first, d.actual)).To(BeTrue(), "the departure of %q says %q, not %q", d.fails[0], first, d.actual)
		})
	}
})
