package statefile_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestStatefile(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Statefile Suite")
}
