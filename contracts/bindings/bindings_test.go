package bindings_test

import (
	"bytes"
	"context"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"

	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/contracts/internal/forgeart"
)

// TestBindingsUpToDate rebuilds the contracts with forge into a temporary directory and fails
// when contracts/abi or the generated bindings differ from what the sources produce now.
func TestBindingsUpToDate(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := forgeart.Forge(root); err != nil {
		t.Fatal("forge not installed (hint: run make setup):", err)
	}
	tmp := t.TempDir()
	if err := forgeart.Build(root, filepath.Join(tmp, "out"), filepath.Join(tmp, "cache")); err != nil {
		t.Fatal(err)
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, name := range forgeart.Contracts {
		a, err := forgeart.Read(filepath.Join(tmp, "out"), name)
		if err != nil {
			t.Fatal(err)
		}
		if err := forgeart.Write(tmp, name, a); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{name + ".abi.json", name + ".bin"} {
			compareFiles(t, filepath.Join(tmp, f), filepath.Join(root, "contracts", "abi", f))
		}
		goFile := map[string]string{"EpochAnchor": "epoch_anchor.go", "PaceSmartAccount": "pace_smart_account.go"}[name]
		out := filepath.Join(tmp, goFile)
		cmd := exec.Command(gobin, "run", "github.com/ethereum/go-ethereum/cmd/abigen", "--v2",
			"--abi", filepath.Join(tmp, name+".abi.json"), "--bin", filepath.Join(tmp, name+".bin"),
			"--pkg", "bindings", "--type", name, "--out", out)
		cmd.Dir = root
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("abigen %s: %v\n%s", name, err, msg)
		}
		compareFiles(t, out, goFile)
	}
}

func compareFiles(t *testing.T, fresh, committed string) {
	t.Helper()
	a, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("%s is stale: run `go generate ./contracts/bindings` and commit the result", committed)
	}
}

// anchorChain deploys EpochAnchor on the simulated chain with Osaka (current mainnet) rules.
func anchorChain(t *testing.T) (*simulated.Backend, *bind.BoundContract, *bind.TransactOpts) {
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	b := simulated.NewBackend(types.GenesisAlloc{from: {Balance: new(big.Int).Lsh(big.NewInt(1), 100)}},
		func(_ *node.Config, ec *ethconfig.Config) {
			cfg := *ec.Genesis.Config
			cfg.AmsterdamTime, cfg.BogotaTime, cfg.UBTTime = nil, nil, nil
			ec.Genesis.Config = &cfg
		})
	t.Cleanup(func() { b.Close() })
	opts := bind.NewKeyedTransactor(key, big.NewInt(1337))
	addr, tx, err := bind.DeployContract(opts, common.FromHex(bindings.EpochAnchorMetaData.Bin), b.Client(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Commit()
	if r, err := b.Client().TransactionReceipt(context.Background(), tx.Hash()); err != nil || r.Status != 1 {
		t.Fatalf("deploy: %v", err)
	}
	return b, bindings.NewEpochAnchor().Instance(b.Client(), addr), opts
}

// TestAnchorGasAndDifferential anchors a chain of random roots in real transactions, checks the
// receipts' gas against the ≤ 31,000 target, and checks that the Go commitment equals the
// contract's stored head after every anchor.
func TestAnchorGasAndDifferential(t *testing.T) {
	b, anchor, opts := anchorChain(t)
	ea := bindings.NewEpochAnchor()
	r := rand.New(rand.NewPCG(1, 2))
	var prev [32]byte
	var gas []uint64
	for epoch := uint64(0); epoch < 20; epoch++ {
		var root [32]byte
		for i := range root {
			root[i] = byte(r.UintN(256))
		}
		tx, err := bind.Transact(anchor, opts, ea.PackAnchor(epoch, root, prev))
		if err != nil {
			t.Fatal(err)
		}
		b.Commit()
		rec, err := b.Client().TransactionReceipt(context.Background(), tx.Hash())
		if err != nil || rec.Status != 1 {
			t.Fatalf("epoch %d: anchor failed: %v", epoch, err)
		}
		gas = append(gas, rec.GasUsed)
		ev, err := ea.UnpackAnchoredEvent(rec.Logs[0])
		if err != nil || ev.Epoch != epoch || ev.Root != root || ev.PrevRoot != prev || ev.Operator != opts.From {
			t.Fatalf("epoch %d: event %+v, %v", epoch, ev, err)
		}
		head, err := bind.Call(anchor, nil, ea.PackHead(opts.From), ea.UnpackHead)
		if err != nil {
			t.Fatal(err)
		}
		if !head.Anchored || head.Epoch != epoch || head.Commitment != bindings.AnchorCommitment(epoch, root) {
			t.Fatalf("epoch %d: head %+v, go commitment %x", epoch, head, bindings.AnchorCommitment(epoch, root))
		}
		prev = root
	}
	t.Logf("EpochAnchor.anchor: first %d gas, steady state %v gas", gas[0], gas[1:])
	for i, g := range gas[1:] {
		if g > 31_000 {
			t.Errorf("epoch %d: steady-state anchor %d gas, want ≤ 31000", i+1, g)
		}
	}
	// A replayed epoch is rejected on chain (eth_estimateGas fails with the revert).
	if _, err := bind.Transact(anchor, opts, ea.PackAnchor(5, prev, prev)); err == nil {
		t.Fatal("replayed epoch accepted")
	}
}

func TestAnchorCommitmentMatchesContract(t *testing.T) {
	_, anchor, _ := anchorChain(t)
	ea := bindings.NewEpochAnchor()
	r := rand.New(rand.NewPCG(3, 4))
	for range 32 {
		epoch := r.Uint64()
		var root [32]byte
		for i := range root {
			root[i] = byte(r.UintN(256))
		}
		got, err := bind.Call(anchor, nil, ea.PackCommitmentOf(epoch, root), ea.UnpackCommitmentOf)
		if err != nil {
			t.Fatal(err)
		}
		if got != bindings.AnchorCommitment(epoch, root) {
			t.Fatalf("epoch %d: contract %x, go %x", epoch, got, bindings.AnchorCommitment(epoch, root))
		}
	}
}
