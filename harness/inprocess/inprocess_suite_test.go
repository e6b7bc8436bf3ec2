package inprocess_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestInprocess(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "In-process reference host")
}
