package clientaddr_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestClientAddr(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Client Address Suite")
}
