package strength_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/owner/strength"
)

var _ = Describe("The owner secret's strength", func() {
	It("accepts random text of 128 bits and more", func() {
		Expect(strength.Check("9f2c4e81b07d3a65c8e1f49a2b6d70e3541a8c9fd2e6b03718c4a5e9f0d2b7c6")).To(Succeed(), "64 hex characters, as openssl rand -hex 32 writes")
		Expect(strength.Check("Kq7vT2xNw9LpR4sZ8mB3cH6jD1fY5gA0eUo-W_iQrXa")).To(Succeed(), "43 characters of base64, as the host generated before")
	})
})
