package clientsteps

import (
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/scripted"
)

var _ = Describe("the order of metadata requests", func() {
	const base = "http://127.0.0.1:9/.well-known/"
	order := []string{base + "oauth-authorization-server/tenant", base + "openid-configuration/tenant", "http://127.0.0.1:9/tenant/.well-known/openid-configuration"}
	asked := func(paths ...string) []scripted.Request {
		var out []scripted.Request
		for i, p := range paths {
			u, err := url.Parse(p)
			Expect(err).NotTo(HaveOccurred())
			out = append(out, scripted.Request{Seq: i + 1, Method: "GET", URL: u})
		}
		return out
	}

	It("takes the listed URLs asked for in the listed order, stopping at the first found", func() {
		_, bad := outOfOrder(asked(order[0], order[1]), order)
		Expect(bad).To(BeFalse())
	})

	It("takes an unlisted URL asked for between two listed ones, which no sentence orders", func() {
		_, bad := outOfOrder(asked(order[0], base+"oauth-authorization-server", order[1], order[0], order[1]), order)
		Expect(bad).To(BeFalse())
	})

	It("names the first listed URL asked for before one listed ahead of it", func() {
		r, bad := outOfOrder(asked(order[1], order[0]), order)
		Expect(bad).To(BeTrue())
		Expect(r.URL.String()).To(Equal(order[1]))
	})

	It("names a listed URL asked for after skipping one listed ahead of it", func() {
		r, bad := outOfOrder(asked(base+"oauth-authorization-server", order[0], order[2]), order)
		Expect(bad).To(BeTrue())
		Expect(r.URL.String()).To(Equal(order[2]))
	})
})
