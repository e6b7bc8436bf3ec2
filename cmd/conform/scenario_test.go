package main_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"

	"github.com/conform-mcp/conform/harness/fakehost"
)

// listedJSON is what `conform list --json` prints of a scenario.
type listedJSON struct {
	ID           string `json:"id"`
	StableID     string `json:"stable_id"`
	Requirements []struct {
		ID    string `json:"id"`
		Level string `json:"level"`
	} `json:"requirements"`
}

func listJSON(args ...string) []listedJSON {
	GinkgoHelper()
	s := exits(conform(nil, append([]string{"list", "--json"}, args...)...), 0)
	var out []listedJSON
	Expect(json.Unmarshal(s.Out.Contents(), &out)).To(Succeed())
	return out
}

var _ = Describe("stable scenario IDs", func() {
	It("lists every scenario for programs, with a stable ID and each requirement's level", func() {
		all := listJSON()
		Expect(all).To(HaveLen(len(listed())))
		all = append(all, listJSON("--spec", "mcp-authorization")...)
		seen := map[string]bool{}
		for _, s := range all {
			Expect(s.StableID).To(MatchRegexp(`^[A-Z0-9]+-\d+/[a-z0-9-]+(/[a-z0-9-]+)?$`), s.ID)
			Expect(seen).NotTo(HaveKey(s.StableID), s.ID)
			seen[s.StableID] = true
			Expect(s.Requirements).NotTo(BeEmpty(), s.ID)
			Expect(s.Requirements[0].Level).To(BeElementOf("MUST", "SHOULD"), s.ID)
		}
	})

	It("runs one scenario alone, named by its stable ID or its ID, an outline's row included", func() {
		f := serveFake(nil)
		for _, id := range []string{
			"AUTH-3/anonymous-method-off-allowlist-answers-401/ping",
			"5_authentication.feature: An anonymous method off the allowlist answers 401: ping",
			"T401-1/401-anonymous-privileged-call-carries-challenge-body",
		} {
			s := exits(conform([]string{"CONFORM_CREDENTIAL=" + f.credential}, "run", "--target", f.url, "--scenario", id), 0)
			Expect(s.Out).To(gbytes.Say(`(?m)^1 passed, 0 failed$`), id)
		}
	})

	It("is a usage error for a scenario no pack has, before anything is sent", func() {
		s := exits(conform(nil, "run", "--target", "http://127.0.0.1:1", "--scenario", "AUTH-3/no-such-scenario"), 2)
		Expect(s.Err).To(gbytes.Say(`no scenario of pack source has the ID "AUTH-3/no-such-scenario"`))
	})

	It("is a usage error for a scenario the sections or --tags leave out", func() {
		s := exits(conform(nil, "run", "--target", "http://127.0.0.1:1", "--scenario", "T401-1/401-anonymous-privileged-call-carries-challenge-body", "7.3"), 2)
		Expect(s.Err).To(gbytes.Say(`not among those --tags and the sections select`))
	})

	It("takes stable IDs in --expected-failures", func() {
		file := writeFile("expected-stable.txt", "T401-1/401-anonymous-privileged-call-carries-challenge-body\n")
		f := serveFake([]fakehost.Break{fakehost.ChallengeMissing})
		s := exits(conform(nil, "run", "--target", f.url, "--scenario", "T401-1/401-anonymous-privileged-call-carries-challenge-body", "--expected-failures", file), 0)
		Expect(s.Out).To(gbytes.Say(`0 passed, 1 failed \(1 tolerated\)`))
	})
})
