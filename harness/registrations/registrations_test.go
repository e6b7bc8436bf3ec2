package registrations_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/registrations"
)

var _ = Describe("the kept clients", func() {
	var (
		dir  string
		warn *bytes.Buffer
		key  registrations.Key
	)
	BeforeEach(func() {
		dir = filepath.Join(GinkgoT().TempDir(), "state")
		warn = &bytes.Buffer{}
		key = registrations.Key{Server: "https://as.example/register", RedirectURI: "http://127.0.0.1:8765/callback", Use: registrations.DeviceSignIn}
	})

	It("finds in a later run the client an earlier one kept, in a file private to the user", func() {
		first := registrations.Open(dir, warn)
		_, _, ok := first.Get(key)
		Expect(ok).To(BeFalse())
		first.Keep(key, registrations.Client{ID: "c1", Secret: "s1", Method: "client_secret_post"})

		later := registrations.Open(dir, warn)
		c, confirmed, ok := later.Get(key)
		Expect(ok).To(BeTrue())
		Expect(c).To(Equal(registrations.Client{ID: "c1", Secret: "s1", Method: "client_secret_post"}))
		By("not counting it confirmed before its server accepted it in this run")
		Expect(confirmed).To(BeFalse())
		later.Confirm(key, "c1")
		_, confirmed, _ = later.Get(key)
		Expect(confirmed).To(BeTrue())

		info, err := os.Stat(filepath.Join(dir, registrations.File))
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o600)))
		Expect(warn.String()).To(BeEmpty())
	})

	It("keeps clients of other uses, servers and redirect URIs apart", func() {
		s := registrations.Open(dir, warn)
		s.Keep(key, registrations.Client{ID: "sign-in"})
		other := key
		other.Use = registrations.DeviceScenarios
		_, _, ok := s.Get(other)
		Expect(ok).To(BeFalse())
		s.Keep(other, registrations.Client{ID: "scenarios"})
		elsewhere := key
		elsewhere.RedirectURI = "http://127.0.0.1:9/cb"
		_, _, ok = s.Get(elsewhere)
		Expect(ok).To(BeFalse())

		again := registrations.Open(dir, warn)
		c, _, _ := again.Get(key)
		Expect(c.ID).To(Equal("sign-in"))
		c, _, _ = again.Get(other)
		Expect(c.ID).To(Equal("scenarios"))
	})

	It("forgets a refused client, but not one kept for the same key since", func() {
		s := registrations.Open(dir, warn)
		s.Keep(key, registrations.Client{ID: "new"})
		s.Forget(key, "old")
		c, _, ok := registrations.Open(dir, warn).Get(key)
		Expect(ok).To(BeTrue())
		Expect(c.ID).To(Equal("new"))
		s.Forget(key, "new")
		_, _, ok = registrations.Open(dir, warn).Get(key)
		Expect(ok).To(BeFalse())
	})

	It("reports a corrupt file, ignores it, and replaces it with the next client kept", func() {
		Expect(os.MkdirAll(dir, 0o700)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, registrations.File), []byte(`{"truncated`), 0o600)).To(Succeed())
		s := registrations.Open(dir, warn)
		Expect(warn.String()).To(ContainSubstring("ignoring the kept clients in " + filepath.Join(dir, registrations.File)))
		_, _, ok := s.Get(key)
		Expect(ok).To(BeFalse())
		s.Keep(key, registrations.Client{ID: "c1"})
		quiet := &bytes.Buffer{}
		c, _, _ := registrations.Open(dir, quiet).Get(key)
		Expect(c.ID).To(Equal("c1"))
		Expect(quiet.String()).To(BeEmpty())
	})

	It("reports a file it cannot write, and goes on", func() {
		blocked := filepath.Join(GinkgoT().TempDir(), "file")
		Expect(os.WriteFile(blocked, nil, 0o600)).To(Succeed())
		s := registrations.Open(filepath.Join(blocked, "state"), warn)
		s.Keep(key, registrations.Client{ID: "c1"})
		Expect(warn.String()).To(ContainSubstring("could not keep the registered clients"))
		c, _, ok := s.Get(key)
		Expect(ok).To(BeTrue())
		Expect(c.ID).To(Equal("c1"))
	})

	It("loses no client kept at once by several scenarios, nor by another process since", func() {
		s := registrations.Open(dir, warn)
		other := registrations.Open(dir, warn)
		other.Keep(registrations.Key{Server: "https://other.example", Use: registrations.CodeTokens}, registrations.Client{ID: "theirs"})
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				k := key
				k.RedirectURI = fmt.Sprintf("http://127.0.0.1:%d/cb", 9000+i)
				s.Keep(k, registrations.Client{ID: fmt.Sprint(i)})
			})
		}
		wg.Wait()
		again := registrations.Open(dir, warn)
		for i := range 8 {
			k := key
			k.RedirectURI = fmt.Sprintf("http://127.0.0.1:%d/cb", 9000+i)
			c, _, ok := again.Get(k)
			Expect(ok).To(BeTrue())
			Expect(c.ID).To(Equal(fmt.Sprint(i)))
		}
		c, _, _ := again.Get(registrations.Key{Server: "https://other.example", Use: registrations.CodeTokens})
		Expect(c.ID).To(Equal("theirs"))
		Expect(warn.String()).To(BeEmpty())
	})

	It("keeps nothing as a nil store, for a host started afresh every run", func() {
		var s *registrations.Store
		s.Keep(key, registrations.Client{ID: "c1"})
		s.Confirm(key, "c1")
		s.Forget(key, "c1")
		_, _, ok := s.Get(key)
		Expect(ok).To(BeFalse())
	})
})
