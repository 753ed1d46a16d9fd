package gas_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	_ "github.com/agentflightrecorder/afr/chain/backend/embedded" // the suite runs on the embedded chain too (AFR_BACKEND=embedded, Config.RPC)
)

func TestGas(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Gas regression")
}
