package authcode_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestAuthcode(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Authcode Suite")
}
