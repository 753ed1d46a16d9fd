package gas_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestGas(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Gas regression")
}
