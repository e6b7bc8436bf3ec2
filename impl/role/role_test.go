package role_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/role"
)

var _ = Describe("Roles", func() {
	It("offers owner first, as the consent page's default", func() {
		Expect(role.Names).To(Equal([]string{"owner", "admin", "member", "guest"}))
	})

	It("narrows from owner to guest, each role within the one above", func() {
		for i := 1; i < len(role.Names); i++ {
			wider, narrower := role.ScopesOf(role.Names[i-1]), role.ScopesOf(role.Names[i])
			Expect(wider).To(ContainElements(narrower))
			Expect(len(wider)).To(BeNumerically(">", len(narrower)), role.Names[i])
		}
		Expect(role.ScopesOf(role.Owner)).To(Equal(role.Scopes))
	})

	It("lets a guest read but never write, delete or run", func() {
		Expect(role.Allows(role.Guest, role.ScopeRead)).To(BeTrue())
		for _, s := range []string{role.ScopeWrite, role.ScopeDelete, role.ScopeExec} {
			Expect(role.Allows(role.Guest, s)).To(BeFalse(), s)
		}
	})

	It("grants nothing to a role it does not know", func() {
		Expect(role.Known("root")).To(BeFalse())
		Expect(role.ScopesOf("root")).To(BeEmpty())
		Expect(role.Allows("", role.ScopeRead)).To(BeFalse())
	})

	It("hands out copies, so no caller can widen a role", func() {
		s := role.ScopesOf(role.Guest)
		s[0] = role.ScopeExec
		Expect(role.Allows(role.Guest, role.ScopeExec)).To(BeFalse())
	})

	DescribeTable("offers first the narrowest role that grants the scopes a client asks for",
		func(scope, want string) { Expect(role.ForScope(scope)).To(Equal(want)) },
		Entry("read only", "afs:read", "guest"),
		Entry("read and write", "afs:read afs:write", "member"),
		Entry("write alone", "afs:write", "member"),
		Entry("delete", "afs:read afs:delete", "admin"),
		Entry("exec", "afs:exec", "owner"),
		Entry("nothing asked", "", "owner"),
		Entry("only names this host does not know", "openid profile", "owner"),
		Entry("unknown names beside known ones", "openid  afs:read", "guest"),
	)
})
