package artifacts_test

import (
	"bytes"
	"context"
	"math/big"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"

	"github.com/agentflightrecorder/afr/contracts/artifacts"
	"github.com/agentflightrecorder/afr/contracts/internal/forgeart"
)

// TestEmbeddedUpToDate fails when targets.json differs from what `go generate
// ./contracts/artifacts` writes from the current forge output (contracts/out, built by `make
// test` before the Go tests); a stale contracts/out fails too, naming `forge build`.
func TestEmbeddedUpToDate(t *testing.T) {
	fresh, err := forgeart.Targets("../out")
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("targets.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Fatal("contracts/artifacts/targets.json is stale: run `go generate ./contracts/artifacts` and commit the result")
	}
}

// The functions and errors each embedded contract must have: a name missing from Names or an
// ABI without them fails.
var want = map[string][]string{
	"AdminTarget":      {"rotate", "signerRevert", "thresholdRevert"},
	"Counter":          {"bump", "fail", "burn", "count", "received", "lastCaller", "error Boom"},
	"EpochAnchor":      {"anchor", "head", "commitmentOf"},
	"Hungry":           {"eat", "eatThenRefuse", "error Refused"},
	"PaceSmartAccount": {"execute", "executeBatch", "executeDelegated", "policySigner"},
	"Reenterer":        {"arm", "armRaw", "attack"},
	"Relay":            {"eat"},
	"Sink":             {"ping"},
}

// TestLoadWithoutCheckout loads every embedded contract with the working directory outside
// the module — what a program that only did `go get` sees — and deploys
// the ones without constructor arguments on go-ethereum's simulated chain.
func TestLoadWithoutCheckout(t *testing.T) {
	t.Chdir(t.TempDir())

	names := artifacts.Names()
	if !slices.Equal(names, []string{"AdminTarget", "Counter", "EpochAnchor", "Hungry", "PaceSmartAccount", "Reenterer", "Relay", "Sink"}) {
		t.Fatalf("Names() = %v", names)
	}
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	b := simulated.NewBackend(types.GenesisAlloc{from: {Balance: new(big.Int).Lsh(big.NewInt(1), 100)}})
	t.Cleanup(func() { b.Close() })
	opts := bind.NewKeyedTransactor(key, big.NewInt(1337))
	ctx := context.Background()

	for _, name := range names {
		a, err := artifacts.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		// solc's creation code starts by setting the free memory pointer: PUSH 0x80 (or
		// higher, with immutables) PUSH1 0x40 MSTORE.
		if a.Name != name || a.Source == "" || !bytes.Contains(a.Bin[:min(len(a.Bin), 6)], []byte{0x60, 0x40, 0x52}) {
			t.Errorf("%s: name %q, source %q, %d bytes of bytecode", name, a.Name, a.Source, len(a.Bin))
		}
		for _, f := range want[name] {
			if e, ok := strings.CutPrefix(f, "error "); ok {
				if _, ok := a.ABI.Errors[e]; !ok {
					t.Errorf("%s: ABI has no error %s", name, e)
				}
			} else if _, ok := a.ABI.Methods[f]; !ok {
				t.Errorf("%s: ABI has no function %s", name, f)
			}
		}
		if len(a.ABI.Constructor.Inputs) > 0 {
			continue // EpochAnchor, PaceSmartAccount, Relay: deployed with arguments elsewhere
		}
		addr, _, err := bind.DeployContract(opts, a.Bin, b.Client(), nil)
		if err != nil {
			t.Fatalf("deploying %s: %v", name, err)
		}
		b.Commit()
		code, err := b.Client().CodeAt(ctx, addr, nil)
		if err != nil || len(code) == 0 {
			t.Errorf("%s: no code after deployment (%v)", name, err)
		}
	}
}

// Load hands out its own copy of the bytecode: changing one does not change the next.
func TestLoadCopies(t *testing.T) {
	a, _ := artifacts.Load("Sink")
	a.Bin[0] ^= 0xff
	b, _ := artifacts.Load("Sink")
	if a.Bin[0] == b.Bin[0] {
		t.Fatal("Load returned shared bytecode")
	}
}

func TestLoadUnknown(t *testing.T) {
	_, err := artifacts.Load("Vault")
	if err == nil || !strings.Contains(err.Error(), `no embedded contract "Vault"`) ||
		!strings.Contains(err.Error(), "Counter") || !strings.Contains(err.Error(), "ReadForge") {
		t.Fatalf("err = %v", err)
	}
}
