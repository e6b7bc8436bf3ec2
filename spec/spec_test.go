package spec_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cucumber/godog"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/features/clients"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

func TestSpec(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Spec Suite")
}

// requirementTag is a tag that names a requirement: @AREA-N.
var requirementTag = regexp.MustCompile(`^@[A-Z][A-Z0-9]*-[0-9]+$`)

// capabilities are the @needs-* tags a target knows how to meet or refuse.
var capabilities = []string{target.NeedsCredential, target.NeedsPeer, target.NeedsClock, target.NeedsTime, target.NeedsApproval,
	target.NeedsAuthorizationApproval, target.NeedsExpiredToken, target.NeedsOtherResourceToken, target.NeedsLimitedToken,
	target.NeedsAuthorization, target.NeedsOtherUserToken}

var _ = Describe("the packs", func() {
	It("loads every pack, the source document first, with IDs no two packs share", func() {
		all, err := spec.LoadAll()
		Expect(err).NotTo(HaveOccurred())
		Expect(all).To(HaveLen(len(spec.Packs())))
		Expect(all[0].Pack).To(Equal(spec.Source))
	})

	It("refuses an unknown pack by naming the packs there are", func() {
		_, err := spec.LoadPack("no-such-pack")
		Expect(err).To(MatchError(ContainSubstring("packs: source, mcp-authorization")))
	})

	It("takes a requirement's role, server by default, and refuses an unknown one", func() {
		s, err := spec.Parse([]byte("pack: p\ntitle: t\ndocument: d\nrequirements:\n- {id: A-1, section: '1', level: MUST, text: x}\n- {id: A-2, section: '1', level: MUST, text: y, role: client}\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Requirements[0].Binds()).To(Equal(spec.ServerSide))
		Expect(s.Requirements[1].Binds()).To(Equal(spec.ClientSide))
		_, err = spec.Parse([]byte("pack: p\ntitle: t\ndocument: d\nrequirements:\n- {id: A-1, section: '1', level: MUST, text: x, role: proxy}\n"))
		Expect(err).To(MatchError(ContainSubstring(`unknown role "proxy"`)))
	})

	It("refuses a file whose IDs repeat, or that names no pack", func() {
		_, err := spec.Parse([]byte("pack: p\ntitle: t\ndocument: d\nrequirements:\n- {id: A-1, section: '1', level: MUST, text: x}\n- {id: A-1, section: '1', level: MUST, text: y}\n"))
		Expect(err).To(MatchError(ContainSubstring("duplicate id")))
		_, err = spec.Parse([]byte("requirements:\n- {id: A-1, section: '1', level: MUST, text: x}\n"))
		Expect(err).To(MatchError(ContainSubstring("pack, title and document are required")))
	})
})

// The features are the executable specification (PRODUCT.md section 1.3):
// these checks keep them and each pack's requirements telling the same story.
var _ = Describe("coverage of the requirements by the features", func() {
	for _, pack := range spec.Packs() {
		Context("in pack "+pack, func() { coverage(pack) })
	}
})

func coverage(pack string) {
	var (
		sp        *spec.Spec
		scenarios []runner.Listing
		// taggedBy maps a requirement ID to the scenarios tagged with it.
		taggedBy map[string][]string
	)

	BeforeEach(func() {
		var err error
		sp, err = spec.LoadPack(pack)
		Expect(err).NotTo(HaveOccurred())
		scenarios, err = runner.List(pack, "", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(scenarios).NotTo(BeEmpty())
		taggedBy = map[string][]string{}
		for _, s := range scenarios {
			for _, t := range s.Tags {
				if requirementTag.MatchString(t) {
					id := strings.TrimPrefix(t, "@")
					taggedBy[id] = append(taggedBy[id], s.ID)
				}
			}
		}
	})

	It("names only requirements that exist", func() {
		var unknown []string
		for id, ids := range taggedBy {
			if _, ok := sp.Get(id); !ok {
				unknown = append(unknown, "@"+id+" on "+ids[0])
			}
		}
		Expect(unknown).To(BeEmpty(), "tags naming no requirement of the pack")
	})

	It("checks every MUST and SHOULD requirement in at least one scenario, unless it says why not", func() {
		var uncovered []string
		for _, r := range sp.Requirements {
			if r.Level == spec.Reference || r.Untested != "" || r.Binds() == spec.ClientSide {
				continue
			}
			if len(taggedBy[r.ID]) == 0 {
				uncovered = append(uncovered, r.ID+" (section "+r.Section+")")
			}
		}
		Expect(uncovered).To(BeEmpty(), "requirements no scenario is tagged with")
	})

	It("tags no requirement that binds a client: the client half checks those", func() {
		var misplaced []string
		for id, ids := range taggedBy {
			if r, ok := sp.Get(id); ok && r.Binds() == spec.ClientSide {
				misplaced = append(misplaced, "@"+id+" on "+ids[0])
			}
		}
		Expect(misplaced).To(BeEmpty())
	})

	It("does not tag a requirement that says it is untested", func() {
		var contradicted []string
		for _, r := range sp.Requirements {
			if r.Untested != "" && len(taggedBy[r.ID]) > 0 {
				contradicted = append(contradicted, r.ID+" on "+taggedBy[r.ID][0])
			}
		}
		Expect(contradicted).To(BeEmpty())
	})

	It("never demands a reference host's choice of another host", func() {
		var demanded []string
		for _, r := range sp.Requirements {
			if r.Level == spec.Reference && len(taggedBy[r.ID]) > 0 {
				demanded = append(demanded, r.ID+" on "+strings.Join(taggedBy[r.ID], ", "))
			}
		}
		Expect(demanded).To(BeEmpty(), "REFERENCE requirements are not shown by the source; no scenario may check them")
	})

	It("ties every scenario to at least one requirement", func() {
		var untied []string
		for _, s := range scenarios {
			if len(s.Requirements) == 0 {
				untied = append(untied, s.ID)
			}
		}
		Expect(untied).To(BeEmpty())
	})

	It("asks only for capabilities a target knows", func() {
		var unknown []string
		for _, s := range scenarios {
			for _, c := range s.Capabilities {
				if !slices.Contains(capabilities, c) {
					unknown = append(unknown, "@needs-"+c+" on "+s.ID)
				}
			}
		}
		Expect(unknown).To(BeEmpty())
	})

	It("gives every scenario a name no other feature uses", func() {
		seen := map[string]string{}
		var dup []string
		for _, s := range scenarios {
			_, name, _ := strings.Cut(s.ID, ": ")
			if first, ok := seen[name]; ok {
				dup = append(dup, s.ID+" (also "+first+")")
				continue
			}
			seen[name] = s.ID
		}
		Expect(dup).To(BeEmpty(), "scenario IDs are \"file: name\"; reports and expected-failure lists rely on them")
	})

	It("marks every scenario with the capabilities its requirements need", func() {
		var unmarked []string
		for _, s := range scenarios {
			for _, id := range s.Requirements {
				r, _ := sp.Get(id)
				for _, need := range r.Needs {
					if !slices.Contains(s.Capabilities, need) {
						unmarked = append(unmarked, s.ID+" lacks @needs-"+need+" ("+id+")")
					}
				}
			}
		}
		Expect(unmarked).To(BeEmpty())
	})

	It("names only capabilities a target knows in the requirements", func() {
		var unknown []string
		for _, r := range sp.Requirements {
			for _, need := range r.Needs {
				if !slices.Contains(capabilities, need) {
					unknown = append(unknown, r.ID+" needs "+need)
				}
			}
		}
		Expect(unknown).To(BeEmpty())
	})
}

var _ = Describe("the order of sections", func() {
	It("compares sections part by part, numbers as numbers, a section before its subsections", func() {
		sections := []string{"authorization.10", "7.10", "authorization.9", "10", "7.9", "2", "7", "authorization"}
		slices.SortFunc(sections, spec.CompareSections)
		Expect(sections).To(Equal([]string{"2", "7", "7.9", "7.10", "10", "authorization", "authorization.9", "authorization.10"}))
	})
})

// The client half's features (features/clients/<pack>) check the
// requirements that bind a client, which the server half's never tag.
var _ = Describe("coverage of the client requirements by the client features", func() {
	for _, pack := range spec.Packs() {
		Context("in pack "+pack, func() { clientCoverage(pack) })
	}
})

// clientScenario is a scenario of the client half as its tags name it.
type clientScenario struct {
	name string
	tags []string
}

func clientCoverage(pack string) {
	var (
		sp        *spec.Spec
		scenarios []clientScenario
	)

	BeforeEach(func() {
		var err error
		sp, err = spec.LoadPack(pack)
		Expect(err).NotTo(HaveOccurred())
		feats, err := godog.TestSuite{Options: &godog.Options{FS: clients.FS, Paths: []string{pack}}}.RetrieveFeatures()
		Expect(err).NotTo(HaveOccurred())
		scenarios = nil
		for _, f := range feats {
			for _, p := range f.Pickles {
				s := clientScenario{name: p.Uri + ": " + p.Name}
				for _, t := range p.Tags {
					s.tags = append(s.tags, t.Name)
				}
				scenarios = append(scenarios, s)
			}
		}
	})

	It("checks every client requirement in at least one client scenario", func() {
		tagged := map[string]bool{}
		for _, s := range scenarios {
			for _, t := range s.tags {
				tagged[strings.TrimPrefix(t, "@")] = true
			}
		}
		var uncovered []string
		for _, r := range sp.Requirements {
			if r.Binds() == spec.ClientSide && r.Untested == "" && !tagged[r.ID] {
				uncovered = append(uncovered, r.ID)
			}
		}
		Expect(uncovered).To(BeEmpty())
	})

	It("tags each client scenario with client requirements of the pack only, and an @id: slug", func() {
		var wrong []string
		for _, s := range scenarios {
			ids, slug := 0, false
			for _, t := range s.tags {
				slug = slug || strings.HasPrefix(t, "@id:")
				if !requirementTag.MatchString(t) {
					continue
				}
				ids++
				if r, ok := sp.Get(strings.TrimPrefix(t, "@")); !ok || r.Binds() != spec.ClientSide {
					wrong = append(wrong, t+" on "+s.name)
				}
			}
			if ids == 0 || !slug {
				wrong = append(wrong, s.name+" lacks a requirement tag or an @id: slug")
			}
		}
		Expect(wrong).To(BeEmpty())
	})
}
