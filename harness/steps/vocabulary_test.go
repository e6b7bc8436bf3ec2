package steps

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/cucumber/godog"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/features"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/target"
)

// The most patterns the vocabulary may have in all, and the most one pack's
// scenarios may use: a small vocabulary that features compose, not a step
// per scenario.
const (
	mostPatterns        = 120
	mostPatternsPerPack = 60
)

// vocabularies are the packs' steps and where their features are.
var vocabularies = []struct {
	pack, glob string
	steps      func(*State, stepContext)
}{
	{"source", "*.feature", sourceSteps},
	{"mcp-authorization", "mcp-authorization/*.feature", authorizationSteps},
}

// patternsOf returns the patterns a pack's scenarios are bound to.
func patternsOf(steps func(*State, stepContext)) []judgement {
	st := newState(&Suite{Target: &target.Target{Profile: profile.Default("")}, Notes: NewNotes()})
	var js []judgement
	bind(st, stepContext{judgements: &js}, steps)
	return js
}

// stepTexts returns the text of every step of the features a glob names.
func stepTexts(glob string) []string {
	paths, err := fs.Glob(features.FS, glob)
	Expect(err).NotTo(HaveOccurred())
	feats, err := godog.TestSuite{Options: &godog.Options{FS: features.FS, Paths: paths}}.RetrieveFeatures()
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, f := range feats {
		for _, p := range f.Pickles {
			for _, s := range p.Steps {
				out = append(out, s.Text)
			}
		}
	}
	return out
}

// matching returns the patterns text matches; a premise ("that ...")
// matches the premise pattern and the one judgement it names.
func matching(js []judgement, text string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, j := range js {
		if j.re.MatchString(text) {
			out = append(out, j.re)
		}
	}
	if inner, ok := strings.CutPrefix(text, "that "); ok && len(out) == 1 && out[0].String() == premisePattern {
		out = append(out, matching(js, inner)...)
		if len(out) == 2 {
			return out
		}
	}
	return out
}

var _ = Describe("the vocabulary", func() {
	for _, v := range vocabularies {
		It("binds every step of the "+v.pack+" pack's features to exactly one pattern", func() {
			js := patternsOf(v.steps)
			used := map[string]bool{}
			var wrong []string
			for _, text := range stepTexts(v.glob) {
				got := matching(js, text)
				want := 1
				if strings.HasPrefix(text, "that ") {
					want = 2
				}
				if len(got) != want {
					wrong = append(wrong, fmt.Sprintf("%q matches %d patterns", text, len(got)))
				}
				for _, re := range got {
					used[re.String()] = true
				}
			}
			Expect(wrong).To(BeEmpty())
			Expect(len(used)).To(BeNumerically("<=", mostPatternsPerPack), "distinct patterns the pack's scenarios use")
		})
	}

	It(fmt.Sprintf("has at most %d patterns, each bound to a step of some feature", mostPatterns), func() {
		all := map[string]bool{}
		used := map[string]bool{}
		for _, v := range vocabularies {
			js := patternsOf(v.steps)
			for _, j := range js {
				all[j.re.String()] = true
			}
			for _, text := range stepTexts(v.glob) {
				for _, re := range matching(js, text) {
					used[re.String()] = true
				}
			}
		}
		var unused []string
		for p := range all {
			if !used[p] {
				unused = append(unused, p)
			}
		}
		Expect(unused).To(BeEmpty(), "patterns no step of any feature uses")
		Expect(len(all)).To(BeNumerically("<=", mostPatterns))
	})
})
