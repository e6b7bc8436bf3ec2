package clientsteps_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/clientrun"
	"github.com/conform-mcp/conform/harness/clientsteps"
	"github.com/conform-mcp/conform/harness/outcome"
)

// config runs the test client of pack with the given breaks.
func config(pack, breaks string) clientsteps.Config {
	base := clientrun.Quote(fakeclientBin) + " -pack " + pack + " -url {url} -state {state_dir}"
	if breaks != "" {
		base += " -break " + breaks
	}
	return clientsteps.Config{Pack: pack, Command: base, Second: base + " -tool {tool} -args {args}", Timeout: 30 * time.Second, StateDir: GinkgoT().TempDir()}
}

var _ = Describe("the reference client", func() {
	for _, pack := range []string{"mcp-authorization", "source"} {
		It("passes every client scenario of pack "+pack, func() {
			got, err := runPack(config(pack, ""))
			Expect(err).NotTo(HaveOccurred())
			Expect(got).NotTo(BeEmpty())
			for name, v := range got {
				Expect(v.status).To(Equal(outcome.Passed), "%s: %s", name, v.why)
			}
		})
	}
})
