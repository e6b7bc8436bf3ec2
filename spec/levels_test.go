package spec_test

import (
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/spec"
)

// The keywords of RFC 2119 a sentence of an inventory binds with: those of
// an absolute requirement (MUST, MUST NOT, REQUIRED, SHALL, SHALL NOT), and
// those of a recommendation (SHOULD, SHOULD NOT, RECOMMENDED, NOT
// RECOMMENDED).
var (
	absolute    = regexp.MustCompile(`\b(MUST|REQUIRED|SHALL)\b`)
	recommended = regexp.MustCompile(`\b(SHOULD|RECOMMENDED)\b`)
)

// A requirement's level is its sentences': a SHOULD that only MUST
// sentences cite is looser than its text unless its derived reason says
// what it infers beyond them; a MUST that only SHOULD sentences cite is
// stricter than its text, which nothing excuses. Only the mcp-authorization
// pack answers to its inventory for its levels: the source pack's levels
// are the source document's, which its inventory of RFC sentences does not
// hold, and where the source states its own rule the source wins
// (spec/sentences.yaml).
var _ = Describe("the mcp-authorization requirements' levels", func() {
	var (
		sp    *spec.Spec
		cites map[string][]spec.Sentence
	)
	BeforeEach(func() {
		var err error
		sp, err = spec.LoadPack(spec.Authorization)
		Expect(err).NotTo(HaveOccurred())
		inv, err := spec.LoadInventory(spec.Authorization)
		Expect(err).NotTo(HaveOccurred())
		cites = map[string][]spec.Sentence{}
		for _, s := range inv.Sentences {
			for _, id := range s.Requirements {
				cites[id] = append(cites[id], s)
			}
		}
	})

	It("are read from sentences that each carry a keyword", func() {
		inv, err := spec.LoadInventory(spec.Authorization)
		Expect(err).NotTo(HaveOccurred())
		var bare []string
		for _, s := range inv.Sentences {
			if !absolute.MatchString(s.Sentence) && !recommended.MatchString(s.Sentence) {
				bare = append(bare, s.ID)
			}
		}
		Expect(bare).To(BeEmpty(), "inventoried sentences without a keyword")
	})

	It("agree with the sentences that cite them, or say what they infer", func() {
		Expect(levelDisagreements(sp.Requirements, cites)).To(BeEmpty())
	})

	It("would flag a SHOULD only MUST sentences cite without a reason, and a MUST only SHOULD sentences cite", func() {
		must := []spec.Sentence{{ID: "X-1-1", Sentence: "The server MUST refuse it."}}
		should := []spec.Sentence{{ID: "X-1-2", Sentence: "The server SHOULD NOT accept it."}}
		both := []spec.Sentence{must[0], should[0]}
		reqs := []spec.Requirement{
			{ID: "A-1", Level: spec.Should},
			{ID: "A-2", Level: spec.Should, Derived: "what is inferred"},
			{ID: "A-3", Level: spec.Must},
			{ID: "A-4", Level: spec.Should},
			{ID: "A-5", Level: spec.Must},
		}
		got := levelDisagreements(reqs, map[string][]spec.Sentence{"A-1": must, "A-2": must, "A-3": should, "A-4": both, "A-5": both})
		Expect(got).To(ConsistOf(
			"A-1: a SHOULD only MUST sentences cite, without a derived reason",
			"A-3: a MUST only SHOULD sentences cite"))
	})
})

// levelDisagreements names the requirements whose level their citing
// sentences do not carry: a SHOULD no recommendation cites, unless its
// derived reason says what it infers; a MUST no absolute requirement cites.
func levelDisagreements(reqs []spec.Requirement, cites map[string][]spec.Sentence) []string {
	var disagree []string
	for _, r := range reqs {
		ss := cites[r.ID]
		if len(ss) == 0 {
			continue
		}
		var must, should bool
		for _, s := range ss {
			must = must || absolute.MatchString(s.Sentence)
			should = should || recommended.MatchString(s.Sentence)
		}
		switch {
		case r.Level == spec.Should && !should && r.Derived == "":
			disagree = append(disagree, r.ID+": a SHOULD only MUST sentences cite, without a derived reason")
		case r.Level == spec.Must && !must:
			disagree = append(disagree, r.ID+": a MUST only SHOULD sentences cite")
		}
	}
	return disagree
}
