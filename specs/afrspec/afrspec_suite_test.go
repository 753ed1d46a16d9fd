package afrspec_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestAfrspec(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "afrspec matchers and harness")
}
