package target_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/harness/wire"
)

type fakeClock struct{ advanced time.Duration }

func (c *fakeClock) Advance(d time.Duration) { c.advanced += d }

var _ = Describe("a target's capabilities", func() {
	It("names the missing profile key for each capability it lacks", func() {
		t := target.FromProfile(profile.Default("http://h"))
		Expect(t.Lacks(target.NeedsCredential)).To(ContainSubstring("credential_env"))
		Expect(t.Lacks(target.NeedsPeer)).To(ContainSubstring("peer.target"))
		Expect(t.Lacks(target.NeedsClock)).To(ContainSubstring("clock"))
		Expect(t.Lacks(target.NeedsTime)).To(ContainSubstring("slow: true"))
		Expect(t.Lacks(target.NeedsApproval)).To(ContainSubstring("oauth.device_approval_command"))
		Expect(t.Lacks("teleport")).To(ContainSubstring("unknown capability"))
	})

	It("names where each credential from the environment came from", func() {
		GinkgoT().Setenv("CONFORM_TEST_TARGET_CRED", "token-a")
		GinkgoT().Setenv("CONFORM_TEST_PEER_CRED", "token-b")
		p := profile.Default("http://h")
		p.CredentialEnv = "CONFORM_TEST_TARGET_CRED"
		p.Peer = &profile.Peer{Target: "http://p", CredentialEnv: "CONFORM_TEST_PEER_CRED"}
		t := target.FromProfile(p)
		Expect(t.Credential).To(Equal("token-a"))
		Expect(t.CredentialSource).To(Equal("the credential in CONFORM_TEST_TARGET_CRED"))
		Expect(t.PeerCredentialSource).To(Equal("the credential in CONFORM_TEST_PEER_CRED"))

		p.CredentialEnv = "CONFORM_TEST_UNSET_CRED"
		t = target.FromProfile(p)
		Expect(t.Credential).To(BeEmpty())
		Expect(t.CredentialSource).To(BeEmpty(), "no credential, nothing to name")
	})

	It("meets them once the profile provides them", func() {
		p := profile.Default("http://h")
		p.Slow = true
		p.OAuth.DeviceApprovalCommand = "true"
		t := target.FromProfile(p)
		t.Credential, t.PeerCredential = "a", "b"
		for _, c := range []string{target.NeedsCredential, target.NeedsPeer, target.NeedsTime, target.NeedsApproval} {
			Expect(t.Lacks(c)).To(BeEmpty(), c)
		}
	})

	It("advances a controllable clock at once instead of waiting", func(ctx context.Context) {
		clk := &fakeClock{}
		t := &target.Target{Profile: profile.Default("http://h"), Clock: clk}
		start := time.Now()
		Expect(t.Wait(ctx, 7*24*time.Hour, nil)).To(Succeed())
		Expect(clk.advanced).To(Equal(7 * 24 * time.Hour))
		Expect(time.Since(start)).To(BeNumerically("<", time.Second))
	})

	It("refuses a real-time wait the profile does not allow", func(ctx context.Context) {
		t := &target.Target{Profile: profile.Default("http://h")}
		Expect(t.Wait(ctx, time.Hour, nil)).To(MatchError(ContainSubstring("slow: true")))
	})

	It("announces a real-time wait and stops when cancelled", func() {
		p := profile.Default("http://h")
		p.Slow = true
		t := &target.Target{Profile: p}
		var announced time.Duration
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := t.Wait(ctx, time.Hour, func(_ string, d time.Duration) { announced = d })
		Expect(err).To(MatchError(context.Canceled))
		Expect(announced).To(Equal(time.Hour))
	})
})

var _ = Describe("the device approval command", func() {
	It("passes the user code and target as arguments, never as shell text", func(ctx context.Context) {
		dir := GinkgoT().TempDir()
		out := filepath.Join(dir, "args")
		approve := target.CommandApprover(`printf '%s|%s' {user_code} {target} > `+out, "http://h:1")
		hostile := `X"; touch ` + filepath.Join(dir, "pwned") + `; echo "`
		Expect(approve(ctx, hostile)).To(Succeed())
		got, err := os.ReadFile(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal(hostile + "|http://h:1"))
		Expect(filepath.Join(dir, "pwned")).NotTo(BeAnExistingFile())
	})

	It("reports the command's failure with its output", func(ctx context.Context) {
		approve := target.CommandApprover("echo no such code >&2; exit 3", "http://h")
		Expect(approve(ctx, "ABCD-EFGH")).To(MatchError(ContainSubstring("no such code")))
	})
})

var _ = Describe("the mcp-authorization capabilities", func() {
	It("names the profile key each missing one needs", func() {
		t := target.FromProfile(profile.Default("http://127.0.0.1:3000"))
		Expect(t.Lacks(target.NeedsAuthorizationApproval)).To(ContainSubstring("oauth.authorization_approval_command"))
		Expect(t.Lacks(target.NeedsExpiredToken)).To(ContainSubstring("mcp_authorization.expired_token_env"))
		Expect(t.Lacks(target.NeedsOtherResourceToken)).To(ContainSubstring("mcp_authorization.other_resource_token_env"))
		Expect(t.Lacks(target.NeedsLimitedToken)).To(ContainSubstring("mcp_authorization.limited_token_env"))
		Expect(t.Lacks(target.NeedsOtherUserToken)).To(ContainSubstring("mcp_authorization.other_user_token_env"))
		t.Tokens = target.Tokens{Expired: "e", OtherResource: "o", Limited: "l", OtherUser: "u"}
		Expect(t.Lacks(target.NeedsExpiredToken)).To(BeEmpty())
		Expect(t.Lacks(target.NeedsOtherResourceToken)).To(BeEmpty())
		Expect(t.Lacks(target.NeedsLimitedToken)).To(BeEmpty())
		Expect(t.Lacks(target.NeedsOtherUserToken)).To(BeEmpty())
	})

	It("passes the authorization URL and the target to the approval command as arguments and reads the redirect it prints last", func() {
		p := profile.Default("http://127.0.0.1:3000")
		p.OAuth.AuthorizationApprovalCommand = `echo consenting; echo "http://127.0.0.1:8765/callback?code=c&from=$(printf %s {authorization_url} | wc -c)&on="{target}`
		t := target.FromProfile(p)
		Expect(t.Lacks(target.NeedsAuthorizationApproval)).To(BeEmpty())
		hostile := "http://as.example/authorize?x=$(touch /tmp/conform-pwned);y=`id`"
		got, err := t.ApproveAuthorization(context.Background(), hostile)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(fmt.Sprintf("http://127.0.0.1:8765/callback?code=c&from=%d&on=http://127.0.0.1:3000", len(hostile))))
	})

	It("quotes the last lines of a failing approval command's stderr, which say what to mend", func(ctx context.Context) {
		script := `for i in 1 2 3 4 5 6 7; do echo "log line $i" >&2; done; echo "authorize: no owner secret in data/owner-secret" >&2; exit 1`
		_, err := target.CommandAuthorizationApprover(script, "http://h:1")(ctx, "http://as.example/authorize")
		Expect(err).To(MatchError("authorization_approval_command: exit status 1; its stderr ends: " +
			"log line 4 | log line 5 | log line 6 | log line 7 | authorize: no owner secret in data/owner-secret"))
		_, err = target.CommandAuthorizationApprover("exit 1", "http://h:1")(ctx, "http://as.example/authorize")
		Expect(err).To(MatchError("authorization_approval_command: exit status 1, with nothing on stderr or stdout"))
		_, err = target.CommandAuthorizationApprover(`echo "redirected to http://127.0.0.1:8765/cb?code=s3cret-code&state=x"; echo "but the host said no"; exit 1`, "http://h:1")(ctx, "http://as.example/authorize")
		Expect(err).To(MatchError(ContainSubstring("its stdout ends: redirected to http://127.0.0.1:8765/cb?code=" + wire.Masked + "&state=x | but the host said no")))
	})

	It("fails when the approval command fails or prints nothing", func() {
		_, err := target.CommandAuthorizationApprover("exit 3", "http://h:1")(context.Background(), "http://as.example/authorize")
		Expect(err).To(MatchError(ContainSubstring("authorization_approval_command")))
		_, err = target.CommandAuthorizationApprover("true", "http://h:1")(context.Background(), "http://as.example/authorize")
		Expect(err).To(MatchError(ContainSubstring("printed no redirect URL")))
	})
})
