package bindings_test

import (
	"bytes"
	"context"
	"fmt"
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
	"github.com/agentflightrecorder/afr/format"
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

// TestAnchorGasAndDifferential anchors two logs of one operator, interleaved, as chains of
// random roots in real transactions, checks the receipts' gas against the ≤ 31,000 target, and
// checks after every anchor that the Go commitment equals the contract's stored head of that
// log and that the other log's head did not move.
func TestAnchorGasAndDifferential(t *testing.T) {
	b, anchor, opts := anchorChain(t)
	ea := bindings.NewEpochAnchor()
	r := rand.New(rand.NewPCG(1, 2))
	random := func() (d [32]byte) {
		for i := range d {
			d[i] = byte(r.UintN(256))
		}
		return d
	}
	logs := [2][32]byte{random(), random()}
	var prev [2][32]byte
	var gas []uint64
	for i := range 40 {
		l, epoch := i%2, uint64(i/2)
		root := random()
		tx, err := bind.Transact(anchor, opts, ea.PackAnchor(logs[l], epoch, root, prev[l]))
		if err != nil {
			t.Fatal(err)
		}
		b.Commit()
		rec, err := b.Client().TransactionReceipt(context.Background(), tx.Hash())
		if err != nil || rec.Status != 1 {
			t.Fatalf("log %d epoch %d: anchor failed: %v", l, epoch, err)
		}
		if epoch > 0 {
			gas = append(gas, rec.GasUsed)
		} else {
			t.Logf("log %d: first anchor %d gas", l, rec.GasUsed)
		}
		ev, err := ea.UnpackAnchoredEvent(rec.Logs[0])
		if err != nil || ev.LogId != logs[l] || ev.Epoch != epoch || ev.Root != root || ev.PrevRoot != prev[l] || ev.Operator != opts.From {
			t.Fatalf("log %d epoch %d: event %+v, %v", l, epoch, ev, err)
		}
		head, err := bind.Call(anchor, nil, ea.PackHead(opts.From, logs[l]), ea.UnpackHead)
		if err != nil {
			t.Fatal(err)
		}
		if !head.Anchored || head.Epoch != epoch || head.Commitment != bindings.AnchorCommitment(epoch, root) {
			t.Fatalf("log %d epoch %d: head %+v, go commitment %x", l, epoch, head, bindings.AnchorCommitment(epoch, root))
		}
		if l == 1 {
			other, err := bind.Call(anchor, nil, ea.PackIsHead(opts.From, logs[0], epoch, prev[0]), ea.UnpackIsHead)
			if err != nil || !other {
				t.Fatalf("epoch %d: log 0's head moved when log 1 was anchored (%v)", epoch, err)
			}
		}
		prev[l] = root
	}
	t.Logf("EpochAnchor.anchor: steady state %v gas", gas)
	for i, g := range gas {
		if g > 31_000 {
			t.Errorf("anchor %d: steady-state anchor %d gas, want ≤ 31000", i, g)
		}
	}
	// A replayed epoch is rejected on chain (eth_estimateGas fails with the revert).
	if _, err := bind.Transact(anchor, opts, ea.PackAnchor(logs[0], 5, prev[0], prev[0])); err == nil {
		t.Fatal("replayed epoch accepted")
	}
}

// TestBatchGasCurve measures, from receipts, what one log-epoch costs when n of them are
// anchored in one aggregate batch, for n = 1, 10, 100 and 1,000, in both publication modes:
// "file" anchors the batch root with anchor(0, …) (the entries go to the operator's batches
// file), "events" with anchorBatch (the entries in the BatchContents event). Each figure is a
// steady-state batch (the batch chain's head slot already set) of n entries of random logs;
// docs/PERFORMANCE.md, "Anchoring", holds the table this test logs.
func TestBatchGasCurve(t *testing.T) {
	b, anchor, opts := anchorChain(t)
	ea := bindings.NewEpochAnchor()
	r := rand.New(rand.NewPCG(5, 6))
	random := func() (d format.Digest) {
		for i := range d {
			d[i] = byte(r.UintN(256))
		}
		return d
	}
	var (
		number uint64
		prev   format.Digest
	)
	send := func(n int, events bool) (gas uint64) {
		t.Helper()
		entries := make([]format.BatchEntry, n)
		for i := range entries {
			entries[i] = format.BatchEntry{Log: random(), Epoch: r.Uint64N(1 << 20), Root: random(), PrevRoot: random()}
		}
		root, err := format.BatchRoot(number, entries)
		if err != nil {
			t.Fatal(err)
		}
		data := ea.PackAnchor([32]byte{}, number, root, prev)
		if events {
			data = ea.PackAnchorBatch(number, root, prev, format.EncodeBatchEntries(entries))
		}
		tx, err := bind.Transact(anchor, opts, data)
		if err != nil {
			t.Fatal(err)
		}
		b.Commit()
		rec, err := b.Client().TransactionReceipt(context.Background(), tx.Hash())
		if err != nil || rec.Status != 1 {
			t.Fatalf("batch %d (%d entries): %v", number, n, err)
		}
		if events {
			// The contents read back from the event are the entries.
			ev, err := ea.UnpackBatchContentsEvent(rec.Logs[1])
			if err != nil {
				t.Fatal(err)
			}
			got, err := format.DecodeBatchEntries(ev.Entries)
			if err != nil || len(got) != n || got[n-1] != entries[n-1] || ev.Batch != number {
				t.Fatalf("batch %d: BatchContents decodes to %d entries (%v)", number, len(got), err)
			}
		}
		number, prev = number+1, root
		return rec.GasUsed
	}
	send(1, false) // batch 0: the zero→nonzero head slot
	perEpoch := map[string]float64{}
	for _, mode := range []string{"file", "events"} {
		for _, n := range []int{1, 10, 100, 1000} {
			gas := send(n, mode == "events")
			perEpoch[fmt.Sprint(mode, n)] = float64(gas) / float64(n)
			t.Logf("%-6s %5d log-epochs per batch: %9d gas per batch, %8.1f gas per log-epoch", mode, n, gas, float64(gas)/float64(n))
		}
	}
	if g := perEpoch["file100"]; g > 2_000 {
		t.Errorf("file publication, 100 logs per batch: %.1f gas per log-epoch, want ≤ 2,000", g)
	}
	// In event publication every entry's 104 calldata bytes pay EIP-7623's floor price
	// (40 gas per nonzero byte): at least 4,000 gas per log-epoch, whatever the contract does.
	if g := perEpoch["events100"]; g < 4_000 || g > 4_500 {
		t.Errorf("event publication, 100 logs per batch: %.1f gas per log-epoch, expected the calldata floor (4,000–4,500)", g)
	}
}

// TestAnchorRootsGasAndDifferential anchors runs of n = 1, 8, 32 and 128 consecutive epochs of
// one log with anchorRoots in real transactions, after a steady-state single anchor: the receipt
// holds one Anchored event per epoch, each equal to what anchor would emit, and the stored head is
// the Go commitment of the run's last epoch. docs/PERFORMANCE.md, "Anchoring", holds the gas
// table this test logs.
func TestAnchorRootsGasAndDifferential(t *testing.T) {
	b, anchor, opts := anchorChain(t)
	ea := bindings.NewEpochAnchor()
	r := rand.New(rand.NewPCG(7, 8))
	random := func() (d [32]byte) {
		for i := range d {
			d[i] = byte(r.UintN(256))
		}
		return d
	}
	log := random()
	var (
		next uint64
		prev [32]byte
	)
	send := func(data []byte) *types.Receipt {
		t.Helper()
		tx, err := bind.Transact(anchor, opts, data)
		if err != nil {
			t.Fatal(err)
		}
		b.Commit()
		rec, err := b.Client().TransactionReceipt(context.Background(), tx.Hash())
		if err != nil || rec.Status != 1 {
			t.Fatalf("epoch %d: %v", next, err)
		}
		return rec
	}
	root := random()
	send(ea.PackAnchor(log, 0, root, prev)) // the zero→nonzero head slot
	next, prev = 1, root
	root = random()
	single := send(ea.PackAnchor(log, next, root, prev)).GasUsed
	next, prev = 2, root
	t.Logf("anchor          1 epoch  per transaction: %7d gas per transaction, %8.1f gas per epoch", single, float64(single))
	for _, n := range []int{1, 8, 32, 128} {
		roots := make([][32]byte, n)
		for i := range roots {
			roots[i] = random()
		}
		rec := send(ea.PackAnchorRoots(log, next, roots, prev))
		if len(rec.Logs) != n {
			t.Fatalf("run of %d: %d events", n, len(rec.Logs))
		}
		for i, l := range rec.Logs {
			ev, err := ea.UnpackAnchoredEvent(l)
			back := prev
			if i > 0 {
				back = roots[i-1]
			}
			if err != nil || ev.Operator != opts.From || ev.LogId != log || ev.Epoch != next+uint64(i) || ev.Root != roots[i] || ev.PrevRoot != back {
				t.Fatalf("run of %d, event %d: %+v, %v", n, i, ev, err)
			}
		}
		last := next + uint64(n) - 1
		head, err := bind.Call(anchor, nil, ea.PackHead(opts.From, log), ea.UnpackHead)
		if err != nil || !head.Anchored || head.Epoch != last || head.Commitment != bindings.AnchorCommitment(last, roots[n-1]) {
			t.Fatalf("run of %d: head %+v (%v), want epoch %d", n, head, err, last)
		}
		per := float64(rec.GasUsed) / float64(n)
		t.Logf("anchorRoots %5d epochs per transaction: %7d gas per transaction, %8.1f gas per epoch (%.1f× less than anchor)", n, rec.GasUsed, per, float64(single)/per)
		// One anchor's cost plus, per further epoch, its event (2,387) and its 32 calldata bytes.
		if want := 32_000 + 3_100*uint64(n-1); rec.GasUsed > want {
			t.Errorf("run of %d: %d gas, want ≤ %d", n, rec.GasUsed, want)
		}
		next, prev = last+1, roots[n-1]
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
