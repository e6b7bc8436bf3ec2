package strength_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestStrength(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Strength Suite")
}
