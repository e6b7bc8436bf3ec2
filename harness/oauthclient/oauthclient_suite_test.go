package oauthclient_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestOAuthClient(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "OAuth Client Suite")
}
