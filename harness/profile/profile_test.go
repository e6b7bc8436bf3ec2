package profile_test

import (
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/profile"
)

var _ = Describe("the target profile (PRODUCT.md section 4)", func() {
	It("keeps the reference host's defaults for every key it does not set", func() {
		p, err := profile.Parse([]byte("target: https://tools.example.com/\npaths:\n  closed: /private/x\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Target).To(Equal("https://tools.example.com"))
		Expect(p.Paths.Closed).To(Equal("/private/x"))
		Expect(p.Paths.Open).To(Equal("/public/readme.md"))
		Expect(p.Tools.Write).To(Equal("afs_write"))
		Expect(p.OAuth.Register).To(Equal("/oauth/register"))
		Expect(p.RegistrationLimit).To(Equal(50))
		Expect(p.CredentialEnv).To(Equal("CONFORM_CREDENTIAL"))
	})

	DescribeTable("refuses what a run cannot use, saying which key",
		func(yaml, want string) {
			_, err := profile.Parse([]byte(yaml))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("a typo in a key", "target: http://h\npaths:\n  opne: /x\n", "profile line 3: unknown key paths.opne; did you mean paths.open?"),
		Entry("a typo at the top", "target: http://h\nregistration_limt: 3\n", "profile line 2: unknown key registration_limt; did you mean registration_limit?"),
		Entry("a typo under the peer", "target: http://h\npeer:\n  target: http://p\n  credential_evn: X\n", "profile line 4: unknown key peer.credential_evn; did you mean peer.credential_env?"),
		Entry("a value of the wrong type, naming its key", "target: http://h\ntools:\n  allowlisted: afs_list\n", "profile line 3: tools.allowlisted: cannot unmarshal !!str `afs_list` into []string"),
		Entry("a number that is not one", "target: http://h\nregistration_limit: lots\n", "profile line 2: registration_limit: cannot unmarshal !!str `lots` into int"),
		Entry("no target", "slow: true\n", "target is required"),
		Entry("a target that is not http", "target: ftp://h\n", "http or https URL"),
		Entry("credentials in the URL", "target: https://user:secret@h\n", "must not carry credentials"),
		Entry("a relative path", "target: http://h\npaths:\n  open: public/x\n", "paths.open must be an absolute path"),
		Entry("a relative unsupported path", "target: http://h\npaths:\n  unsupported: {path: x, operation: write}\n", "paths.unsupported.path"),
		Entry("an endpoint that is neither a path nor a URL", "target: http://h\noauth:\n  token: oauth/token\n", "oauth.token must be a path starting with / or an absolute http or https URL"),
		Entry("an empty endpoint", "target: http://h\noauth:\n  register: \"\"\n", "oauth.register"),
		Entry("an endpoint on another scheme", "target: http://h\noauth:\n  device_authorization: ftp://as/device\n", "oauth.device_authorization"),
		Entry("an endpoint without a scheme", "target: http://h\noauth:\n  token: //as.example.com/token\n", "oauth.token"),
		Entry("an endpoint carrying credentials", "target: http://h\noauth:\n  token: https://u:p@as/token\n", "oauth.token must not carry credentials"),
		Entry("a tool both allowlisted and privileged", "target: http://h\ntools:\n  privileged: [afs_write, afs_read]\n", `tools.allowlisted and tools.privileged both name "afs_read"`),
		Entry("a content tool also allowlisted", "target: http://h\ntools:\n  content: [search_content, afs_list]\n", `tools.allowlisted and tools.content both name "afs_list"`),
		Entry("a content tool also privileged", "target: http://h\ntools:\n  allowlisted: [afs_read]\n  privileged: [afs_write, get_content]\n", `tools.privileged and tools.content both name "get_content"`),
		Entry("no registrations to probe with", "target: http://h\nregistration_limit: 0\n", "registration_limit"),
		Entry("an MCP revision the suite does not speak", "target: http://h\nmcp_revision: 2024-11-05\n", `mcp_revision must be one of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26`),
		Entry("a bad peer", "target: http://h\npeer:\n  target: nope\n", "peer.target"),
		Entry("a peer that is the target", "target: http://h\npeer:\n  target: http://h/mcp\n", "peer.target is the target itself"),
		Entry("a relative closed-unsupported path", "target: http://h\npaths:\n  closed_unsupported: {path: public/readme.md, operation: write}\n", "paths.closed_unsupported.path"),
		Entry("an operation the source does not name", "target: http://h\npaths:\n  unsupported: {path: /x, operation: wirte}\n", `paths.unsupported.operation must be one of list, stat, read, write, got "wirte"`),
		Entry("another unknown operation", "target: http://h\npaths:\n  closed_unsupported: {path: /x, operation: teleport}\n", "paths.closed_unsupported.operation"),
	)

	It("suggests no key when none is close to the unknown one", func() {
		_, err := profile.Parse([]byte("target: http://h\noauth:\n  zzzz: /x\n"))
		Expect(err).To(MatchError("profile line 3: unknown key oauth.zzzz"))
	})

	DescribeTable("reads a target given as its MCP endpoint as the base URL",
		func(raw, base string, trimmed bool) {
			got, ok := profile.BaseURL(raw)
			Expect(got).To(Equal(base))
			Expect(ok).To(Equal(trimmed))
		},
		Entry("the endpoint", "https://h/mcp", "https://h", true),
		Entry("the endpoint with a slash", "https://h:8080/mcp/", "https://h:8080", true),
		Entry("the endpoint under a path", "https://h/tenant/mcp", "https://h/tenant", true),
		Entry("a base URL", "https://h/", "https://h", false),
		Entry("a host named mcp", "http://mcp", "http://mcp", false),
		Entry("a path that only ends in mcp", "https://h/notmcp", "https://h/notmcp", false),
		Entry("a query after /mcp", "https://h/mcp?x=1", "https://h/mcp?x=1", false),
	)

	It("notes once each target it read as an MCP endpoint", func() {
		p, err := profile.Parse([]byte("target: https://h/mcp\npeer:\n  target: https://p/mcp/\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Target).To(Equal("https://h"))
		Expect(p.Peer.Target).To(Equal("https://p"))
		Expect(p.Notes).To(Equal([]string{
			"target https://h/mcp is the MCP endpoint; using its base URL https://h (the suite adds /mcp itself)",
			"peer.target https://p/mcp/ is the MCP endpoint; using its base URL https://p (the suite adds /mcp itself)",
		}))

		p, err = profile.Parse([]byte("target: https://h\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Notes).To(BeEmpty())
		p.SetTarget("--target", "http://127.0.0.1:8080/mcp")
		Expect(p.Target).To(Equal("http://127.0.0.1:8080"))
		Expect(p.Notes).To(ConsistOf(ContainSubstring("--target http://127.0.0.1:8080/mcp is the MCP endpoint")))
	})

	It("takes an authorization server on another origin", func() {
		p, err := profile.Parse([]byte("target: https://tools.example.com\noauth:\n  register: https://as.example.com/register\n  token: https://as.example.com/token\n  device_authorization: /device\n"))
		Expect(err).NotTo(HaveOccurred())
		ep := p.OAuth.Endpoints()
		Expect(ep.Register).To(Equal("https://as.example.com/register"))
		Expect(ep.Token).To(Equal("https://as.example.com/token"))
		Expect(ep.DeviceAuthorization).To(Equal("/device"))
	})

	It("takes tool lists that do not overlap, and the same name twice in one list", func() {
		_, err := profile.Parse([]byte("target: http://h\ntools:\n  allowlisted: [afs_read, afs_read]\n  privileged: [afs_write, afs_list, afs_stat]\n"))
		Expect(err).NotTo(HaveOccurred())
	})

	It("reads credentials from the environment variables it names, never from the file", func() {
		GinkgoT().Setenv("CONFORM_TEST_CRED", "  token-a  ")
		GinkgoT().Setenv("CONFORM_TEST_PEER", "token-b")
		p, err := profile.Parse([]byte("target: http://h\ncredential_env: CONFORM_TEST_CRED\npeer:\n  target: http://p\n  credential_env: CONFORM_TEST_PEER\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Credential()).To(Equal("token-a"))
		Expect(p.PeerCredential()).To(Equal("token-b"))
	})

	It("loads a file and says when it cannot", func() {
		file := filepath.Join(GinkgoT().TempDir(), "host.yaml")
		Expect(os.WriteFile(file, []byte("target: http://h:1\n"), 0o600)).To(Succeed())
		p, err := profile.Load(file)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Target).To(Equal("http://h:1"))
		_, err = profile.Load(filepath.Join(GinkgoT().TempDir(), "missing.yaml"))
		Expect(err).To(MatchError(ContainSubstring("read profile")))
	})
})

var _ = Describe("the mcp_authorization keys", func() {
	It("names no request that needs authorization by default: the server's answers decide (runner.CheckHostFor)", func() {
		p, err := profile.Parse([]byte("target: http://127.0.0.1:8080\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.MCPAuthorization.ProtectedRequest).To(Equal(profile.Request{}))
		Expect(p.MCPAuthorization.Scoped()).To(Equal(p.MCPAuthorization.ProtectedRequest))
	})

	It("replaces the whole request, so a method alone carries no default params", func() {
		p, err := profile.Parse([]byte("target: http://127.0.0.1:3000\nmcp_authorization:\n  protected_request: {method: tools/list}\n  scoped_request: {method: tools/call, params: {name: add}}\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.MCPAuthorization.ProtectedRequest).To(Equal(profile.Request{Method: "tools/list"}))
		Expect(p.MCPAuthorization.Scoped().Params).To(Equal(map[string]any{"name": "add"}))
	})

	It("takes YAML merge keys, and judges the keys they bring in", func() {
		p, err := profile.Parse([]byte("target: http://127.0.0.1:3000\npaths: &p {open: /public/readme.md}\npeer: {target: http://127.0.0.1:3001, <<: {credential_env: PEER_TOKEN}}\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Peer.CredentialEnv).To(Equal("PEER_TOKEN"))
		_, err = profile.Parse([]byte("target: http://127.0.0.1:3000\npeer: {target: http://127.0.0.1:3001, <<: {credentials_env: PEER_TOKEN}}\n"))
		Expect(err).To(MatchError(ContainSubstring("peer.credentials_env")))
	})

	DescribeTable("refuses what a run cannot use",
		func(yaml, message string) {
			_, err := profile.Parse([]byte("target: http://127.0.0.1:3000\nmcp_authorization:\n" + yaml))
			Expect(err).To(MatchError(ContainSubstring(message)))
		},
		Entry("a request without a method", "  protected_request: {params: {}}\n", "protected_request.method is required"),
		Entry("a key a request does not have", "  protected_request: {method: x, parms: {}}\n", "field parms not found"),
		Entry("an issuer that is not a URL", "  issuer: auth.example\n", "mcp_authorization.issuer must be an http or https URL"),
		Entry("a relative redirect URI", "  redirect_uri: /callback\n", "redirect_uri must be an absolute URL"),
		Entry("another resource that is not a URL", "  other_resource: other\n", "mcp_authorization.other_resource must be an http or https URL"),
		Entry("an Origin that is not one", "  invalid_origin: evil\n", "invalid_origin must be an origin"),
		Entry("a client's registered method without the client", "  client_auth_method: client_secret_post\n", "client_auth_method needs mcp_authorization.client_id"),
		Entry("a registered method the harness does not speak", "  client_id: a\n  client_auth_method: client_secret_pst\n", `client_auth_method must be client_secret_basic, client_secret_post or none (RFC 7591 2), got "client_secret_pst"`),
		Entry("a second client's secret without the client", "  second_client_secret_env: X\n", "second_client_secret_env needs mcp_authorization.second_client_id"),
		Entry("a second client that is the first", "  client_id: a\n  second_client_id: a\n", "second_client_id must name another client"),
		Entry("an expiry that is no RFC 3339 time", "  expired_token_expired_at: yesterday\n", "expired_token_expired_at must be an RFC 3339 time"),
		Entry("an introspection endpoint that is not a URL", "  introspection_endpoint: introspect\n", "mcp_authorization.introspection_endpoint must be an http or https URL"),
		Entry("an introspection secret without its client", "  introspection_client_secret_env: X\n", "introspection_client_secret_env needs mcp_authorization.introspection_client_id"),
	)

	It("reads the pack's tokens from the environment variables it names", func() {
		GinkgoT().Setenv("CONFORM_TEST_EXPIRED", " expired-token ")
		p, err := profile.Parse([]byte("target: http://127.0.0.1:3000\nmcp_authorization:\n  expired_token_env: CONFORM_TEST_EXPIRED\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.MCPAuthorization.ExpiredToken()).To(Equal("expired-token"))
		Expect(p.MCPAuthorization.OtherResourceToken()).To(BeEmpty())
	})
})

var _ = Describe("the MCP endpoint of the mcp-authorization pack", func() {
	It("is the target as given, at any path, with no note that /mcp was removed", func() {
		p := profile.Default("")
		p.SetTarget("--target", "https://mcp.example.com/api/v1/mcp")
		Expect(p.Target).To(Equal("https://mcp.example.com/api/v1"))
		Expect(p.Notes).To(HaveLen(1))
		p.EndpointFromTarget()
		Expect(p.MCPEndpoint).To(Equal("https://mcp.example.com/api/v1/mcp"))
		Expect(p.Notes).To(BeEmpty())

		root := profile.Default("")
		root.SetTarget("--target", "https://mcp.example.com")
		root.EndpointFromTarget()
		Expect(root.MCPEndpoint).To(Equal("https://mcp.example.com"))
	})
})

var _ = Describe("a profile's client: block", func() {
	It("runs the client half without a target, and checks the command names {url}", func() {
		p, err := profile.Parse([]byte("client:\n  command: my-client {url}\n  env: {A: b}\n  timeout: 90s\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Client.Environment()).To(Equal([]string{"A=b"}))
		Expect(p.Client.TimeoutOrDefault()).To(Equal(90 * time.Second))
		_, err = profile.Parse([]byte("client:\n  command: my-client\n"))
		Expect(err).To(MatchError(ContainSubstring("client.command names no {url}")))
		_, err = profile.Parse([]byte("client:\n  command: my-client {url}\n  timeout: soon\n"))
		Expect(err).To(MatchError(ContainSubstring("client.timeout")))
	})

	It("takes the client ID metadata document the client names itself by, as a URL, and not beside a client registered beforehand", func() {
		p, err := profile.Parse([]byte("client:\n  command: my-client {url}\n  client_metadata_url: https://app.example.com/oauth/client.json\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Client.MetadataURL).To(Equal("https://app.example.com/oauth/client.json"))
		_, err = profile.Parse([]byte("client:\n  command: my-client {url}\n  client_metadata_url: app.example.com/client.json\n"))
		Expect(err).To(MatchError(ContainSubstring("is not an absolute http or https URL")))
		_, err = profile.Parse([]byte("client:\n  command: my-client {url}\n  client_id: static\n  client_metadata_url: https://app.example.com/c.json\n"))
		Expect(err).To(MatchError(ContainSubstring("give the one it uses first")))
	})
})
