package main_test

import (
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
)

var _ = Describe("conform list", func() {
	It("prints every scenario with its requirements and the count, running nothing", func() {
		s := exits(conform(nil, "list"), 0)
		out := stdout(s)
		ids := listed()
		Expect(strings.Count(out, "\n    requirements: ")).To(Equal(len(ids)))
		Expect(out).To(HaveSuffix("\n" + strconv.Itoa(len(ids)) + " scenarios\n"))
		// Capability tags are listed where a scenario has them.
		Expect(out).To(MatchRegexp(`(?m)^    needs: .*credential`))
		// Each ID names one scenario, so a line of an expected-failures file
		// is never ambiguous.
		seen := map[string]bool{}
		for _, id := range ids {
			Expect(seen).NotTo(HaveKey(id))
			seen[id] = true
		}
	})

	It("selects by source section", func() {
		all, section := listed(), listed("7.2")
		Expect(len(section)).To(BeNumerically("<", len(all)))
		Expect(all).To(ContainElements(section))
	})

	It("is a usage error for a section no requirement comes from", func() {
		s := exits(conform(nil, "list", "9.9"), 2)
		Expect(s.Err).To(gbytes.Say(`section "9.9"`))
	})
})

var _ = Describe("conform list --spec", func() {
	It("lists the chosen pack alone, saying on every scenario which pack it belongs to", func() {
		source, pack := listed(), listed("--spec", "mcp-authorization")
		Expect(pack).NotTo(BeEmpty())
		for _, id := range pack {
			Expect(id).To(HavePrefix("mcp-authorization/"))
			Expect(source).NotTo(ContainElement(id))
		}
		out := stdout(exits(conform(nil, "list", "--spec", "mcp-authorization"), 0))
		Expect(strings.Count(out, "\n    pack: mcp-authorization\n")).To(Equal(len(pack)))
		Expect(stdout(exits(conform(nil, "list"), 0))).To(ContainSubstring("\n    pack: source\n"))
	})

	It("selects by section within the pack", func() {
		all, section := listed("--spec", "mcp-authorization"), listed("--spec", "mcp-authorization", "discovery")
		Expect(len(section)).To(BeNumerically("<", len(all)))
		Expect(all).To(ContainElements(section))
	})

	It("is a usage error for a section of another pack, or a pack that does not exist", func() {
		s := exits(conform(nil, "list", "--spec", "mcp-authorization", "7.2"), 2)
		Expect(s.Err).To(gbytes.Say(`pack mcp-authorization comes from section "7.2"`))
		s = exits(conform(nil, "list", "--spec", "no-such-pack"), 2)
		Expect(s.Err).To(gbytes.Say(`no specification pack "no-such-pack"`))
	})
})
