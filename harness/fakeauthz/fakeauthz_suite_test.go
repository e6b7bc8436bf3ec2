package fakeauthz_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestFakeauthz(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Fakeauthz Suite")
}
