// Package cheats specifies the World's cheatcodes (forge's names: Deal,
// DealToken, Store, Load, Etch, Warp, Roll, Prank, StartPrank, StopPrank) on
// every local backend, against contracts of its own (src/, compiled with
// forge from this folder's foundry.toml): what each changes is read back
// from the chain or from a contract, and on the embedded chain the ones a
// go-ethereum node cannot perform are refused with an error naming the
// backends that can. docs/SPECS.md, "Cheatcodes", has the table.
package cheats

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	_ "github.com/agentflightrecorder/afr/chain/backend/embedded" // the suite runs on the embedded chain too (AFR_BACKEND=embedded, Config.RPC)
)

func TestCheats(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Cheatcodes on every backend")
}
