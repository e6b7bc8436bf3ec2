package oauth_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/oauth"
)

var _ = Describe("Credentials and Verify (source sections 2, 3 and 5)", func() {
	var h *host
	BeforeEach(func() { h = newHost() })

	It("returns the caller a credential was issued to", func() {
		clientID, token := h.deviceCredential("admin")
		c, err := h.server.Verify(ctx(), token)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.ClientID).To(Equal(clientID))
		Expect(c.Role).To(Equal("admin"))
	})

	It("keeps device-grant credentials working without expiry", func() {
		_, token := h.deviceCredential("owner")
		h.clock.Advance(10 * 365 * 24 * time.Hour)
		_, err := h.server.Verify(ctx(), token)
		Expect(err).NotTo(HaveOccurred())
	})

	DescribeTable("rejects what it did not issue",
		func(token string) {
			_, err := h.server.Verify(ctx(), token)
			Expect(errors.Is(err, oauth.ErrInvalidCredential)).To(BeTrue(), "%v", err)
		},
		Entry("empty", ""),
		Entry("garbage", "not a token"),
		Entry("right length, not base64url", strings.Repeat("!", 64)),
		Entry("right length, wrong tag", strings.Repeat("A", 64)),
		Entry("a Bearer prefix left on", "Bearer "+strings.Repeat("A", 64)),
	)

	It("rejects a credential altered in one character", func() {
		_, token := h.deviceCredential("owner")
		tampered := token[:len(token)-1] + map[bool]string{true: "B", false: "A"}[token[len(token)-1] == 'A']
		_, err := h.server.Verify(ctx(), tampered)
		Expect(errors.Is(err, oauth.ErrInvalidCredential)).To(BeTrue())
	})

	It("keeps credentials across a restart (close and reopen the store)", func() {
		clientID, token := h.deviceCredential("member")
		h.restart()
		c, err := h.server.Verify(ctx(), token)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.ClientID).To(Equal(clientID))
		Expect(c.Role).To(Equal("member"))

		By("keeping the registration, used, past seven days")
		h.clock.Advance(8 * 24 * time.Hour)
		Expect(h.startDevice(clientID).userCode).NotTo(BeEmpty())
	})

	It("keeps a pending device flow across a restart", func() {
		clientID := h.register()
		d := h.startDevice(clientID)
		h.restart()
		Expect(h.decide(d.userCode, "owner", "approve").status).To(Equal(200))
		h.restart()
		Expect(h.poll(d).str("access_token")).NotTo(BeEmpty())
	})

	It("refuses each other's credentials between two instances with separate stores", func() {
		other := newHost()
		_, mine := h.deviceCredential("owner")
		_, theirs := other.deviceCredential("owner")

		_, err := h.server.Verify(ctx(), theirs)
		Expect(errors.Is(err, oauth.ErrInvalidCredential)).To(BeTrue())
		_, err = other.server.Verify(ctx(), mine)
		Expect(errors.Is(err, oauth.ErrInvalidCredential)).To(BeTrue())

		_, err = h.server.Verify(ctx(), mine)
		Expect(err).NotTo(HaveOccurred())
		_, err = other.server.Verify(ctx(), theirs)
		Expect(err).NotTo(HaveOccurred())
	})

	It("stops at a cancelled context", func() {
		_, token := h.deviceCredential("owner")
		cancelled, cancel := context.WithCancel(ctx())
		cancel()
		_, err := h.server.Verify(cancelled, token)
		Expect(errors.Is(err, context.Canceled)).To(BeTrue())
	})

	It("verifies concurrently", func() {
		_, token := h.deviceCredential("owner")
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				defer GinkgoRecover()
				_, err := h.server.Verify(ctx(), token)
				Expect(err).NotTo(HaveOccurred())
			})
		}
		wg.Wait()
	})

	It("requires a store", func() {
		_, err := oauth.New(oauth.Options{})
		Expect(err).To(MatchError(ContainSubstring("Store is required")))
	})
})
