package oauth_test

import (
	"net/http"
	"net/url"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/store"
)

var _ = Describe("Unused registration lifetime (source sections 3 and 8)", func() {
	const week = 7 * 24 * time.Hour
	var h *host
	var clientID string
	BeforeEach(func() {
		h = newHost()
		clientID = h.register()
	})

	deviceAuthorization := func(id string) reply {
		return h.postForm("/oauth/device_authorization", url.Values{"client_id": {id}})
	}

	It("still knows an unused registration at seven days minus one second", func() {
		h.clock.Advance(week - time.Second)
		Expect(deviceAuthorization(clientID).status).To(Equal(http.StatusOK))
	})

	It("has removed an unused registration at seven days plus one second", func() {
		h.clock.Advance(week + time.Second)
		expectOAuthError(deviceAuthorization(clientID), http.StatusBadRequest, "invalid_client", "")
	})

	It("has removed it at exactly seven days", func() {
		h.clock.Advance(week)
		expectOAuthError(deviceAuthorization(clientID), http.StatusBadRequest, "invalid_client", "")
	})

	It("counts a started but unfinished device flow as unused", func() {
		h.startDevice(clientID)
		h.clock.Advance(week + time.Second)
		expectOAuthError(deviceAuthorization(clientID), http.StatusBadRequest, "invalid_client", "")
	})

	It("keeps a registration that completed an authorization", func() {
		d := h.startDevice(clientID)
		h.decide(d.userCode, "owner", "approve")
		Expect(h.poll(d).status).To(Equal(http.StatusOK))
		h.clock.Advance(30 * week)
		Expect(deviceAuthorization(clientID).status).To(Equal(http.StatusOK))
	})

	It("sweeps removed registrations and expired device codes out of the store", func() {
		kept := h.register()
		d := h.startDevice(kept)
		h.decide(d.userCode, "owner", "approve")
		h.poll(d)
		h.startDevice(kept)
		h.clock.Advance(week + 2*time.Hour)
		h.register() // any OAuth request lets the hourly sweep run
		var ids []string
		devices := 0
		Expect(h.store.View(func(tx *store.Tx) error {
			if err := tx.Clients(func(c store.Client) error { ids = append(ids, c.ID); return nil }); err != nil {
				return err
			}
			return tx.DeviceCodes(func(store.Digest, store.DeviceCode) error { devices++; return nil })
		})).To(Succeed())
		Expect(ids).To(ContainElement(kept))
		Expect(ids).NotTo(ContainElement(clientID))
		Expect(ids).To(HaveLen(2))
		Expect(devices).To(BeZero())
	})

	It("sweeps the owner's expired sessions and unposted forms, so the store does not grow", func() {
		d := h.startDevice(clientID)
		h.csrfFor(d.userCode) // renders a form that is never posted
		count := func() (sessions, forms int) {
			Expect(h.store.View(func(tx *store.Tx) error {
				if err := tx.OwnerSessions(func(store.Digest, store.OwnerSession) error { sessions++; return nil }); err != nil {
					return err
				}
				return tx.ConsentForms(func(store.Digest, store.ConsentForm) error { forms++; return nil })
			})).To(Succeed())
			return sessions, forms
		}
		sessions, forms := count()
		Expect(sessions).To(Equal(1))
		Expect(forms).To(Equal(1))
		h.clock.Advance(13 * time.Hour)
		h.register() // any OAuth request lets the hourly sweep run
		sessions, forms = count()
		Expect(sessions).To(BeZero())
		Expect(forms).To(BeZero())
		By("asking the owner to sign in again")
		Expect(h.get("/oauth/device").body).To(ContainSubstring(`id="owner_secret"`))
	})

	It("sweeps at start-up too", func() {
		h.clock.Advance(week + time.Second)
		h.restart()
		found := false
		Expect(h.store.View(func(tx *store.Tx) error {
			_, found, _ = tx.Client(clientID)
			return nil
		})).To(Succeed())
		Expect(found).To(BeFalse())
	})
})
