package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/store"
)

var _ = Describe("Store", func() {
	var path string
	var s *store.Store

	BeforeEach(func() {
		path = filepath.Join(GinkgoT().TempDir(), "data", "host.db")
		var err error
		s, err = store.Open(path)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = s.Close() })
	})

	reopen := func() {
		Expect(s.Close()).To(Succeed())
		var err error
		s, err = store.Open(path)
		Expect(err).NotTo(HaveOccurred())
	}

	// Issue 26 item 4: bbolt commits its meta and freelist pages even for a
	// transaction that changed nothing; a refused request must cost no write.
	It("writes nothing for an update that changes no record, and keeps what one that does changes", func() {
		time.Sleep(10 * time.Millisecond) // a commit after this shows as a later modification time
		before, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Update(func(tx *store.Tx) error {
			_, _, err := tx.Client("nobody")
			if err != nil {
				return err
			}
			return tx.DeleteClient("nobody")
		})).To(Succeed())
		after, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(after.ModTime()).To(Equal(before.ModTime()))

		Expect(s.Update(func(tx *store.Tx) error { return tx.PutClient(store.Client{ID: "c1"}) })).To(Succeed())
		reopen()
		Expect(s.View(func(tx *store.Tx) error {
			_, found, err := tx.Client("c1")
			Expect(found).To(BeTrue())
			return err
		})).To(Succeed())
	})

	It("creates the file readable by its owner only", func() {
		info, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o600)))
	})

	It("creates an instance identity once and keeps it across restarts", func() {
		id := s.Identity()
		Expect(id.InstanceID).To(HaveLen(32))
		Expect(id.Secret).To(HaveLen(32))
		reopen()
		Expect(s.Identity()).To(Equal(id))
	})

	It("gives separate data files separate identities", func() {
		other, err := store.Open(filepath.Join(GinkgoT().TempDir(), "other.db"))
		Expect(err).NotTo(HaveOccurred())
		defer other.Close()
		Expect(other.Identity().InstanceID).NotTo(Equal(s.Identity().InstanceID))
		Expect(other.Identity().Secret).NotTo(Equal(s.Identity().Secret))
	})

	It("keeps what a temporary store wrote for as long as the process reads it", func() {
		tmp := filepath.Join(GinkgoT().TempDir(), "temporary.db")
		t, err := store.OpenTemporary(tmp)
		Expect(err).NotTo(HaveOccurred())
		id := t.Identity()
		Expect(t.Close()).To(Succeed())
		t, err = store.OpenTemporary(tmp)
		Expect(err).NotTo(HaveOccurred())
		defer t.Close()
		Expect(t.Identity()).To(Equal(id))
	})

	It("refuses a second opener with a clear message instead of hanging", func() {
		_, err := store.Open(path)
		Expect(err).To(MatchError(ContainSubstring("data directory in use")))
	})

	It("keeps records across restarts", func() {
		now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		c := store.Client{ID: "c1", Name: "n", RedirectURIs: []string{"https://a.example/cb"},
			GrantTypes: []string{"authorization_code"}, CreatedAt: now}
		d := store.DigestOf("token")
		cred := store.Credential{ClientID: "c1", Role: "owner", GrantID: "g", IssuedAt: now}
		Expect(s.Update(func(tx *store.Tx) error {
			if err := tx.PutClient(c); err != nil {
				return err
			}
			return tx.PutCredential(d, cred)
		})).To(Succeed())
		reopen()
		Expect(s.View(func(tx *store.Tx) error {
			got, ok, err := tx.Client("c1")
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeTrue())
			Expect(got).To(Equal(c))
			gotCred, ok, err := tx.Credential(d)
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeTrue())
			Expect(gotCred).To(Equal(cred))
			return nil
		})).To(Succeed())
	})

	It("never writes the secret itself, only its digest", func() {
		token := "very-secret-token-value-0123456789"
		Expect(s.Update(func(tx *store.Tx) error {
			return tx.PutCredential(store.DigestOf(token), store.Credential{ClientID: "c"})
		})).To(Succeed())
		Expect(s.Close()).To(Succeed())
		raw, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).NotTo(ContainSubstring(token))
		d := store.DigestOf(token)
		Expect(string(raw)).To(ContainSubstring(string(d[:])))
		s, err = store.Open(path)
		Expect(err).NotTo(HaveOccurred())
	})

	It("stores nothing of a change whose transaction fails half-way", func() {
		boom := errors.New("boom")
		err := s.Update(func(tx *store.Tx) error {
			Expect(tx.PutClient(store.Client{ID: "half"})).To(Succeed())
			Expect(tx.PutCredential(store.DigestOf("t"), store.Credential{ClientID: "half"})).To(Succeed())
			return boom
		})
		Expect(err).To(MatchError(boom))
		Expect(s.View(func(tx *store.Tx) error {
			_, ok, err := tx.Client("half")
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeFalse())
			_, ok, err = tx.Credential(store.DigestOf("t"))
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeFalse())
			return nil
		})).To(Succeed())
	})

	It("finds device codes by user code and keeps the index with the record", func() {
		d := store.DigestOf("device")
		dc := store.DeviceCode{UserCode: "BCDF-GHJK", ClientID: "c", Status: store.DevicePending, Interval: 5 * time.Second}
		Expect(s.Update(func(tx *store.Tx) error { return tx.PutDeviceCode(d, dc) })).To(Succeed())
		Expect(s.View(func(tx *store.Tx) error {
			gotD, got, ok, err := tx.DeviceCodeByUserCode("BCDF-GHJK")
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeTrue())
			Expect(gotD).To(Equal(d))
			Expect(got).To(Equal(dc))
			return nil
		})).To(Succeed())

		By("refusing a second device code with the same user code")
		err := s.Update(func(tx *store.Tx) error { return tx.PutDeviceCode(store.DigestOf("other"), dc) })
		Expect(errors.Is(err, store.ErrUserCodeTaken)).To(BeTrue())

		By("dropping the index entry with the record")
		Expect(s.Update(func(tx *store.Tx) error { return tx.DeleteDeviceCode(d) })).To(Succeed())
		Expect(s.View(func(tx *store.Tx) error {
			_, _, ok, err := tx.DeviceCodeByUserCode("BCDF-GHJK")
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeFalse())
			return nil
		})).To(Succeed())
	})

	It("lists and deletes every kind of record", func() {
		d := store.DigestOf("x")
		Expect(s.Update(func(tx *store.Tx) error {
			Expect(tx.PutClient(store.Client{ID: "a"})).To(Succeed())
			Expect(tx.PutDeviceCode(d, store.DeviceCode{UserCode: "U"})).To(Succeed())
			Expect(tx.PutAuthCode(d, store.AuthCode{ClientID: "a"})).To(Succeed())
			Expect(tx.PutCredential(d, store.Credential{ClientID: "a"})).To(Succeed())
			return tx.PutRefreshToken(d, store.RefreshToken{ClientID: "a", Access: d})
		})).To(Succeed())
		count := func() int {
			n := 0
			Expect(s.View(func(tx *store.Tx) error {
				Expect(tx.Clients(func(store.Client) error { n++; return nil })).To(Succeed())
				Expect(tx.DeviceCodes(func(store.Digest, store.DeviceCode) error { n++; return nil })).To(Succeed())
				Expect(tx.AuthCodes(func(store.Digest, store.AuthCode) error { n++; return nil })).To(Succeed())
				Expect(tx.Credentials(func(store.Digest, store.Credential) error { n++; return nil })).To(Succeed())
				return tx.RefreshTokens(func(got store.Digest, r store.RefreshToken) error {
					Expect(got).To(Equal(d))
					Expect(r.Access).To(Equal(d))
					n++
					return nil
				})
			})).To(Succeed())
			return n
		}
		Expect(count()).To(Equal(5))
		Expect(s.Update(func(tx *store.Tx) error {
			Expect(tx.DeleteClient("a")).To(Succeed())
			Expect(tx.DeleteDeviceCode(d)).To(Succeed())
			Expect(tx.DeleteAuthCode(d)).To(Succeed())
			Expect(tx.DeleteCredential(d)).To(Succeed())
			return tx.DeleteRefreshToken(d)
		})).To(Succeed())
		Expect(count()).To(Equal(0))
	})
})

var _ = Describe("Rotating the owner secret", func() {
	var s *store.Store
	BeforeEach(func() {
		var err error
		s, err = store.Open(filepath.Join(GinkgoT().TempDir(), "host.db"))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = s.Close() })
		later := time.Now().Add(time.Hour)
		Expect(s.Update(func(tx *store.Tx) error {
			Expect(tx.PutOwnerSecret(store.DigestOf("old secret"))).To(Succeed())
			Expect(tx.PutOwnerSession(store.DigestOf("cookie"), store.OwnerSession{CreatedAt: time.Now(), ExpiresAt: later})).To(Succeed())
			return tx.PutConsentForm(store.DigestOf("csrf"), store.ConsentForm{Session: store.DigestOf("cookie"), Binding: "b", ExpiresAt: later})
		})).To(Succeed())
	})

	held := func() (sessions, forms int) {
		Expect(s.View(func(tx *store.Tx) error {
			Expect(tx.OwnerSessions(func(store.Digest, store.OwnerSession) error { sessions++; return nil })).To(Succeed())
			return tx.ConsentForms(func(store.Digest, store.ConsentForm) error { forms++; return nil })
		})).To(Succeed())
		return sessions, forms
	}

	It("ends every owner session and consent form signed in with the old secret", func() {
		Expect(s.Update(func(tx *store.Tx) error { return tx.PutOwnerSecret(store.DigestOf("new secret")) })).To(Succeed())
		sessions, forms := held()
		Expect(sessions).To(BeZero())
		Expect(forms).To(BeZero())
		Expect(s.View(func(tx *store.Tx) error {
			d, ok := tx.OwnerSecret()
			Expect(ok).To(BeTrue())
			Expect(d).To(Equal(store.DigestOf("new secret")))
			return nil
		})).To(Succeed())
	})

	It("keeps them when the host restarts with the same secret", func() {
		Expect(s.Update(func(tx *store.Tx) error { return tx.PutOwnerSecret(store.DigestOf("old secret")) })).To(Succeed())
		sessions, forms := held()
		Expect(sessions).To(Equal(1))
		Expect(forms).To(Equal(1))
	})
})
