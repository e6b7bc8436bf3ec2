package main_test

import (
	"net/http"
	"os/exec"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"
)

var _ = Describe("toolhost revoke", func() {
	It("revokes a credential as the owner, after which the host refuses it", func() {
		data := GinkgoT().TempDir()
		_, base := serve("127.0.0.1:0", data)
		credential := signIn(base, data, "owner")
		status, body := write(base, credential)
		Expect(status).To(Equal(http.StatusOK), body)
		expectWritten(body)

		revoked := exits(start(toolhostPath, "revoke", "--data", data, "--target", base, credential), 0)
		Expect(revoked.Out).To(gbytes.Say(`revoked on ` + base))
		status, _ = write(base, credential)
		Expect(status).To(Equal(http.StatusUnauthorized))
	})

	It("reads the token from standard input for -, keeping it off the command line", func() {
		data := GinkgoT().TempDir()
		_, base := serve("127.0.0.1:0", data)
		credential := signIn(base, data, "owner")
		cmd := exec.Command(toolhostPath, "revoke", "--data", data, "--target", base, "-")
		cmd.Stdin = strings.NewReader(credential + "\n")
		s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		exits(s, 0)
		status, _ := write(base, credential)
		Expect(status).To(Equal(http.StatusUnauthorized))
	})

	It("refuses without the owner secret", func() {
		_, base := serve("127.0.0.1:0", GinkgoT().TempDir())
		s := exits(start(toolhostPath, "revoke", "--data", GinkgoT().TempDir(), "--target", base, "some-token"), 1)
		Expect(s.Err).To(gbytes.Say(`revoke: `))
	})
})
