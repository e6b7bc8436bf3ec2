package signin_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSignin(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Sign-in")
}
