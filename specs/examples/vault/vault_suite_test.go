// Package vault is a worked example of afrspec against contracts of its own:
// a vault with three classic bugs (src/Vault.sol), the same vault fixed
// (src/FixedVault.sol) and a re-entrancy attacker (src/Reenter.sol), compiled
// with forge from this folder's foundry.toml. Each spec attacks the vulnerable
// vault (and drains it), shows the fix refusing the same attack with its
// custom error, records the attack as evidence in the World's log, and the
// suite gates the fixed vault's gas against gas-baseline.json. docs/SPECS.md
// walks through it.
package vault

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestVault(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Vault attacks (afrspec worked example)")
}
