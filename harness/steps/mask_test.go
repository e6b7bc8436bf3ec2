package steps

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/harness/wire"
)

var _ = Describe("depart", func() {
	departure := func(auth, expected, actual string) *outcome.Departure {
		st := &State{
			Suite: &Suite{Target: &target.Target{
				Profile:        profile.Default("http://127.0.0.1:8080"),
				Credential:     "target-secret-1234",
				PeerCredential: "peer-secret-5678",
			}},
			auth: auth,
		}
		var d *outcome.Departure
		Expect(errors.As(st.depart("check", expected, actual), &d)).To(BeTrue())
		return d
	}

	It("masks the target's, the peer's and the caller's credentials", func() {
		d := departure("Bearer caller-secret-9999", "target-secret-1234", "peer-secret-5678 and caller-secret-9999")
		Expect(d.Expected).To(Equal(wire.Masked))
		Expect(d.Actual).To(Equal(wire.Masked + " and " + wire.Masked))
	})

	It("keeps the scheme when the caller sent a bare one", func() {
		d := departure("Bearer", `a Bearer challenge with resource_metadata="u"`, `Bearer realm="x"`)
		Expect(d.Expected).To(Equal(`a Bearer challenge with resource_metadata="u"`))
		Expect(d.Actual).To(Equal(`Bearer realm="x"`))
	})
})
