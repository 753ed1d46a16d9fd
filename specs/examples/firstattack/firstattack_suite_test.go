// Package firstattack is the example external suite of docs/SPECS.md: it
// uses only the public API of afrspec (and pdr to forge a PDR), as a team
// writing specs in its own repository would.
package firstattack

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	_ "github.com/agentflightrecorder/afr/chain/backend/embedded" // the suite runs on the embedded chain too (AFR_BACKEND=embedded, Config.RPC)
)

func TestFirstAttack(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "My first attack spec")
}
