package world_test

import (
	"context"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/world"
)

// TestWorldWithoutCheckout builds a World with the working directory outside the AFR module,
// as a module that only did `go get` would: its contracts come from the
// artifacts embedded in the Go module, not from a forge build of an AFR checkout.
func TestWorldWithoutCheckout(t *testing.T) {
	t.Chdir(t.TempDir())
	if _, err := os.Stat("go.mod"); err == nil {
		t.Fatal("the test runs inside a module")
	}
	for _, name := range []string{"Counter", "Sink", "Reenterer", "AdminTarget", "Hungry", "Relay", "EpochAnchor", "PaceSmartAccount"} {
		a, err := world.TargetArtifact(name)
		if err != nil {
			t.Fatal(err)
		}
		if a.Name != name || len(a.Bin) == 0 || len(a.ABI.Methods) == 0 {
			t.Errorf("%s: name %q, %d bytes of bytecode, %d functions", name, a.Name, len(a.Bin), len(a.ABI.Methods))
		}
	}
	ctx := context.Background()
	w, err := world.New(ctx, world.Config{Backend: backend.KindEmbedded})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	counter, err := world.TargetArtifact("Counter")
	if err != nil {
		t.Fatal(err)
	}
	if r := w.Send(ctx, w.Owner(), w.Counter(), nil, counter.Pack("bump", big.NewInt(7))); !r.Succeeded() {
		t.Fatalf("Counter.bump on the World's Counter: %s", r)
	}
	at := w.Counter()
	out, err := w.Client().CallContract(ctx, ethereum.CallMsg{To: &at, Data: counter.Pack("count")}, nil)
	if err != nil || new(big.Int).SetBytes(out).Int64() != 7 {
		t.Fatalf("Counter.count() = %x, %v; want 7", out, err)
	}
}

// LoadForgeArtifact names the file and what to do when the artifact is missing.
func TestLoadForgeArtifactMissing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out", "Vault.sol", "Vault.json")
	_, err := world.LoadForgeArtifact(p)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "`forge build`") {
		t.Fatalf("err = %v", err)
	}
}
