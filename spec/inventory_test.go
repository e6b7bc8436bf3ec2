package spec_test

import (
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/spec"
)

// inventoried matches a document an inventory restates, as a requirement's
// text names it ("RFC 6749").
var inventoried = regexp.MustCompile(`RFC ?(6749|6750|8252|8628)`)

var _ = Describe("the sentence inventories", func() {
	It("load for every pack", func() {
		for _, pack := range spec.Packs() {
			inv, err := spec.LoadInventory(pack)
			Expect(err).NotTo(HaveOccurred(), pack)
			Expect(inv.Sentences).NotTo(BeEmpty(), pack)
		}
	})

	It("refuse an entry with neither requirements nor a reason, or with both", func() {
		_, err := spec.ParseInventory([]byte("sentences:\n- {id: RFC1-2-1, sentence: s, where: w, binds: [client], observable: true}\n"))
		Expect(err).To(MatchError(ContainSubstring("names no requirement and says not why")))
		_, err = spec.ParseInventory([]byte("sentences:\n- {id: RFC1-2-1, sentence: s, where: w, binds: [client], observable: true, requirements: [A-1], unchecked: 'out of scope: x'}\n"))
		Expect(err).To(MatchError(ContainSubstring("names requirements and says why none judges it")))
	})

	It("refuse an id used twice, a party it does not know, and a reason of no known kind", func() {
		_, err := spec.ParseInventory([]byte("sentences:\n- {id: RFC1-2-1, sentence: s, where: w, binds: [client], observable: false, unchecked: 'not observable: x'}\n- {id: RFC1-2-1, sentence: t, where: w, binds: [client], observable: false, unchecked: 'not observable: x'}\n"))
		Expect(err).To(MatchError(ContainSubstring("duplicate id")))
		_, err = spec.ParseInventory([]byte("sentences:\n- {id: RFC1-2-1, sentence: s, where: w, binds: [proxy], observable: false, unchecked: 'not observable: x'}\n"))
		Expect(err).To(MatchError(ContainSubstring("unknown party")))
		_, err = spec.ParseInventory([]byte("sentences:\n- {id: RFC1-2-1, sentence: s, where: w, binds: [resource-server], observable: true, unchecked: not written yet}\n"))
		Expect(err).To(MatchError(ContainSubstring("begins with none of")))
		_, err = spec.ParseInventory([]byte("sentences:\n- {id: RFC1-2-1, sentence: s, where: w, binds: [resource-server], observable: true, unchecked: 'out of scope: '}\n"))
		Expect(err).To(MatchError(ContainSubstring("begins with none of")), "a kind with no reason after it")
	})

	It("refuse a client_unchecked reason but beside requirements of a sentence binding both sides, or of no known kind", func() {
		_, err := spec.ParseInventory([]byte("sentences:\n- {id: RFC1-2-1, sentence: s, where: w, binds: [client], observable: true, requirements: [A-1], client_unchecked: 'out of scope: x'}\n"))
		Expect(err).To(MatchError(ContainSubstring("client_unchecked is for")))
		_, err = spec.ParseInventory([]byte("sentences:\n- {id: RFC1-2-1, sentence: s, where: w, binds: [client, resource-server], observable: true, unchecked: 'out of scope: x', client_unchecked: 'out of scope: y'}\n"))
		Expect(err).To(MatchError(ContainSubstring("client_unchecked is for")))
		_, err = spec.ParseInventory([]byte("sentences:\n- {id: RFC1-2-1, sentence: s, where: w, binds: [client, resource-server], observable: true, requirements: [A-1], client_unchecked: later}\n"))
		Expect(err).To(MatchError(ContainSubstring("begins with none of")))
		_, err = spec.ParseInventory([]byte("sentences:\n- {id: RFC1-2-1, sentence: s, where: w, binds: [client, resource-server], observable: true, requirements: [A-1], client_unchecked: 'out of scope: y'}\n"))
		Expect(err).NotTo(HaveOccurred())
	})

	It("refuse whom a sentence binds as a reason: the packs judge clients too", func() {
		_, err := spec.ParseInventory([]byte("sentences:\n- {id: RFC1-2-1, sentence: s, where: w, binds: [client], observable: true, unchecked: binds only clients}\n"))
		Expect(err).To(MatchError(ContainSubstring("begins with none of")))
	})

	for _, pack := range spec.Packs() {
		Context("of pack "+pack, func() { inventory(pack) })
	}
})

func inventory(pack string) {
	var (
		sp  *spec.Spec
		inv *spec.Inventory
	)

	BeforeEach(func() {
		var err error
		sp, err = spec.LoadPack(pack)
		Expect(err).NotTo(HaveOccurred())
		inv, err = spec.LoadInventory(pack)
		Expect(err).NotTo(HaveOccurred())
	})

	It("judges every observable sentence that binds a server, or says why it is out of scope", func() {
		var unjudged []string
		for _, s := range inv.Sentences {
			if s.BindsServer() && s.Observable && len(s.Requirements) == 0 && !strings.HasPrefix(s.Unchecked, spec.OutOfScope) {
				unjudged = append(unjudged, s.ID+" ("+s.Unchecked+")")
			}
		}
		Expect(unjudged).To(BeEmpty(), "an observable server sentence is unchecked only as out of scope, with the reason")
	})

	It("judges every observable sentence that binds a client, or says why it is out of scope", func() {
		var unjudged []string
		for _, s := range inv.Sentences {
			if s.BindsClient() && s.Observable && len(s.Requirements) == 0 && !strings.HasPrefix(s.Unchecked, spec.OutOfScope) {
				unjudged = append(unjudged, s.ID+" ("+s.Unchecked+")")
			}
		}
		Expect(unjudged).To(BeEmpty(), "an observable client sentence is unchecked only as out of scope, with the reason")
	})

	It("says, for a sentence binding both sides whose requirements judge only the server, why none judges the client", func() {
		var silent, needless []string
		for _, s := range inv.Sentences {
			if !s.BindsClient() || len(s.Requirements) == 0 {
				continue
			}
			judged := slices.ContainsFunc(s.Requirements, func(id string) bool {
				r, ok := sp.Get(id)
				return ok && r.Binds() == spec.ClientSide
			})
			switch {
			case !judged && s.ClientUnchecked == "":
				silent = append(silent, s.ID)
			case judged && s.ClientUnchecked != "":
				needless = append(needless, s.ID)
			}
		}
		Expect(silent).To(BeEmpty(), "the client's part judged by no requirement and no client_unchecked reason")
		Expect(needless).To(BeEmpty(), "a client requirement named and a client_unchecked reason given")
	})

	It("says a sentence is not observable only where observable is false", func() {
		var wrong []string
		for _, s := range inv.Sentences {
			if strings.HasPrefix(s.Unchecked, spec.NotObservable) && s.Observable {
				wrong = append(wrong, s.ID)
			}
		}
		Expect(wrong).To(BeEmpty(), "observable: true with a reason saying it is not")
	})

	It("names a client's requirement only for a sentence that binds a client, and a server's only for one that binds a server", func() {
		var wrong []string
		for _, s := range inv.Sentences {
			for _, id := range s.Requirements {
				r, ok := sp.Get(id)
				if !ok {
					continue
				}
				if (r.Binds() == spec.ClientSide && !s.BindsClient()) || (r.Binds() == spec.ServerSide && !s.BindsServer()) {
					wrong = append(wrong, id+" on "+s.ID)
				}
			}
		}
		Expect(wrong).To(BeEmpty())
	})

	It("names only requirements the pack holds", func() {
		var unknown []string
		for _, s := range inv.Sentences {
			for _, id := range s.Requirements {
				if _, ok := sp.Get(id); !ok {
					unknown = append(unknown, id+" on "+s.ID)
				}
			}
		}
		Expect(unknown).To(BeEmpty())
	})

	It("is cited by every MUST and SHOULD requirement that restates an inventoried text", func() {
		cited := map[string]bool{}
		for _, s := range inv.Sentences {
			for _, id := range s.Requirements {
				cited[id] = true
			}
		}
		var uncited []string
		for _, r := range sp.Requirements {
			if r.Level == spec.Reference || cited[r.ID] || !restatesInventory(pack, r) {
				continue
			}
			uncited = append(uncited, r.ID+" (section "+r.Section+")")
		}
		Expect(uncited).To(BeEmpty(), "requirements no sentence of the inventory names")
	})
}

// restatesInventory says whether every requirement of the pack answers to
// its inventory. The mcp-authorization pack restates the inventoried texts
// and nothing else; the source pack restates the source document, and only
// its requirements that name one of the RFCs the source invokes answer to
// that inventory.
func restatesInventory(pack string, r spec.Requirement) bool {
	return pack == spec.Authorization || inventoried.MatchString(r.Text)
}

var _ = Describe("the mcp-authorization README", func() {
	// rows are the unchecked sentences the table between marker's
	// comments must list, each as "id | where | reason".
	rows := func(binds func(spec.Sentence) bool, reason func(spec.Sentence) string) []string {
		inv, err := spec.LoadInventory(spec.Authorization)
		Expect(err).NotTo(HaveOccurred())
		var want []string
		for _, s := range inv.Sentences {
			if binds(s) && reason(s) != "" {
				want = append(want, s.ID+" | "+s.Where+" | "+reason(s))
			}
		}
		return want
	}
	table := func(marker string, want []string) {
		readme, err := os.ReadFile("mcp-authorization/README.md")
		Expect(err).NotTo(HaveOccurred())
		got := uncheckedRows(string(readme), marker)
		sort.Strings(want)
		sort.Strings(got)
		Expect(got).To(Equal(want), "the README's table "+marker+" departs from sentences.yaml")
	}

	It("lists exactly the unchecked sentences binding a server, with the inventory's reasons", func() {
		table("inventory:unchecked", rows(spec.Sentence.BindsServer, func(s spec.Sentence) string { return s.Unchecked }))
	})

	It("lists exactly the unchecked sentences binding a client, with the inventory's reasons", func() {
		// A sentence binding both sides whose requirements judge only the
		// server is listed with its client_unchecked reason.
		table("inventory:unchecked-client", rows(spec.Sentence.BindsClient, func(s spec.Sentence) string {
			if s.ClientUnchecked != "" {
				return s.ClientUnchecked
			}
			return s.Unchecked
		}))
	})
})

// uncheckedRows returns the rows of the README's table between the
// <!-- marker --> and <!-- /marker --> comments, each as "id | where |
// reason".
func uncheckedRows(readme, marker string) []string {
	_, rest, ok := strings.Cut(readme, "<!-- "+marker+" -->")
	if !ok {
		return nil
	}
	table, _, _ := strings.Cut(rest, "<!-- /"+marker+" -->")
	var rows []string
	for _, line := range strings.Split(table, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| Sentence |") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, strings.Join(cells, " | "))
	}
	return rows
}
