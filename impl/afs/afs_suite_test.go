package afs_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestAFS(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "AFS Suite")
}
