package clientrun_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestClientrun(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Clientrun Suite")
}
