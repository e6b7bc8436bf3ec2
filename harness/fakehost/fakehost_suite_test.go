package fakehost_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestFakehost(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Fake Host Suite")
}
