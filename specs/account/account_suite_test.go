package account_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/world"

	_ "github.com/agentflightrecorder/afr/chain/backend/embedded" // the suite runs on the embedded chain too (AFR_BACKEND=embedded, Config.RPC)
)

func TestAccount(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "PDR and account attacks")
}

// One World per suite process: specs read the account's nonce instead of
// assuming it, so they run in any order.
var w *afrspec.World

var _ = BeforeSuite(func() {
	w = afrspec.StartWorld(world.Config{})
})
