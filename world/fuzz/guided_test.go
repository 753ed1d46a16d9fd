package fuzz_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/world"
	"github.com/agentflightrecorder/afr/world/fuzz"
)

// gateABI is the ABI of the Gate contract of gateCode.
const gateABI = `[
{"type":"function","name":"a","stateMutability":"nonpayable","inputs":[{"name":"x","type":"uint256"}],"outputs":[]},
{"type":"function","name":"b","stateMutability":"nonpayable","inputs":[],"outputs":[]},
{"type":"function","name":"c","stateMutability":"nonpayable","inputs":[{"name":"y","type":"uint256"}],"outputs":[]},
{"type":"function","name":"d","stateMutability":"nonpayable","inputs":[],"outputs":[]},
{"type":"function","name":"broken","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"bool"}]}]`

// gateCode is the runtime code of Gate, the classic demo of a bug behind
// a path (Echidna's and Medusa's), written in EVM assembly since it needs
// no compiler. Slot 0 is the stage, slot 1 x, slot 2 broken:
//
//	a(x): stage = 1 and x stored if 0 < x < 16, else stage = 0
//	b():  stage = 2 if stage == 1, else stage = 0
//	c(y): broken = true if stage == 2 and x <= y < x+8
//	d():  stage = 0
//	broken() view returns broken
//
// A random sequence must hold a(x in range), b, c(y near x) in that order
// with no reset between; a guided campaign keeps the sequence that reached
// each stage and goes on from it.
func gateCode(a abi.ABI) []byte {
	sel := func(m string) uint64 { return uint64(new(big.Int).SetBytes(a.Methods[m].ID).Int64()) }
	return asm(
		"PUSH0", "CALLDATALOAD", 224, "SHR",
		"DUP1", sel("a"), "EQ", ":a", "JUMPI",
		"DUP1", sel("b"), "EQ", ":b", "JUMPI",
		"DUP1", sel("c"), "EQ", ":c", "JUMPI",
		"DUP1", sel("d"), "EQ", ":d", "JUMPI",
		"DUP1", sel("broken"), "EQ", ":broken", "JUMPI",
		"PUSH0", "PUSH0", "REVERT",

		"@a", 4, "CALLDATALOAD", "DUP1", 1, "SSTORE", // x = arg
		1, "SWAP1", "SUB", 15, "GT", ":a.in", "JUMPI", // 15 > x-1: 0 < x < 16
		"PUSH0", "PUSH0", "SSTORE", "STOP",
		"@a.in", 1, "PUSH0", "SSTORE", "STOP",

		"@b", "PUSH0", "SLOAD", 1, "EQ", ":b.in", "JUMPI",
		"PUSH0", "PUSH0", "SSTORE", "STOP",
		"@b.in", 2, "PUSH0", "SSTORE", "STOP",

		"@c", "PUSH0", "SLOAD", 2, "EQ", ":c.stage", "JUMPI", "STOP",
		"@c.stage", 1, "SLOAD", 4, "CALLDATALOAD", "SUB", 8, "GT", ":c.in", "JUMPI", "STOP", // 8 > y-x
		"@c.in", 1, 2, "SSTORE", "STOP",

		"@d", "PUSH0", "PUSH0", "SSTORE", "STOP",

		"@broken", 2, "SLOAD", "PUSH0", "MSTORE", 32, "PUSH0", "RETURN",
	)
}

// asm assembles EVM code: an opcode by name, a number as the shortest
// PUSH of it, "@name" a JUMPDEST called name and ":name" a PUSH2 of its
// position.
func asm(prog ...any) []byte {
	labels := map[string]int{}
	for pass := range 2 {
		var code []byte
		for _, p := range prog {
			switch p := p.(type) {
			case int:
				code = appendPush(code, uint64(p))
			case uint64:
				code = appendPush(code, p)
			case string:
				switch {
				case p[0] == '@':
					labels[p[1:]] = len(code)
					code = append(code, byte(vm.JUMPDEST))
				case p[0] == ':':
					at, ok := labels[p[1:]]
					if !ok && pass == 1 {
						panic("asm: no label " + p)
					}
					code = append(code, byte(vm.PUSH2), byte(at>>8), byte(at))
				default:
					op := vm.StringToOp(p)
					if op == 0 && p != "STOP" {
						panic("asm: no opcode " + p)
					}
					code = append(code, byte(op))
				}
			}
		}
		if pass == 1 {
			return code
		}
	}
	panic("unreachable")
}

// appendPush appends the shortest PUSH of v.
func appendPush(code []byte, v uint64) []byte {
	b := new(big.Int).SetUint64(v).Bytes()
	if len(b) == 0 {
		return append(code, byte(vm.PUSH0))
	}
	return append(append(code, byte(vm.PUSH1)+byte(len(b)-1)), b...)
}

// deployable is initcode that returns runtime as the contract's code.
func deployable(runtime []byte) []byte {
	n := len(runtime)
	init := []byte{byte(vm.PUSH2), byte(n >> 8), byte(n), byte(vm.DUP1), byte(vm.PUSH1), 10, byte(vm.PUSH0), byte(vm.CODECOPY), byte(vm.PUSH0), byte(vm.RETURN)}
	return append(init, runtime...)
}

// gateWorld is an in-process World with a Gate deployed, and its
// campaign: calls to a, b, c, d from the agent, the invariant "not
// broken", Depth 15 and runs sequences.
func gateWorld(t testing.TB, runs int) (*world.World, fuzz.Campaign) {
	t.Helper()
	ctx := context.Background()
	w, err := world.New(ctx, world.Config{Backend: backend.KindInProcess})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	parsed, err := abi.JSON(strings.NewReader(gateABI))
	if err != nil {
		t.Fatal(err)
	}
	gate, err := w.DeployArtifact(ctx, w.Deployer(), &world.Artifact{Name: "Gate", ABI: parsed, Bin: deployable(gateCode(parsed))})
	if err != nil {
		t.Fatal(err)
	}
	return w, fuzz.Campaign{
		Targets: []fuzz.Target{{Name: "Gate", Address: gate, ABI: parsed}},
		Senders: []*world.Actor{w.Agent()},
		Invariants: []fuzz.Invariant{{Name: "not broken", Check: func(ctx context.Context, w *world.World) error {
			out, err := w.Client().CallContract(ctx, ethereum.CallMsg{To: &gate, Data: parsed.Methods["broken"].ID}, nil)
			if err != nil {
				return fmt.Errorf("broken(): %w", err)
			}
			if new(big.Int).SetBytes(out).Sign() != 0 {
				return errors.New("broken() = true")
			}
			return nil
		}}},
		Depth: fuzz.DefaultDepth, Runs: runs, NoFailFile: true,
	}
}

// gateBudget is the budget of TestGuidedFindsThePath: sequences of
// DefaultDepth calls.
const gateBudget = 300

// TestGuidedFindsThePath: on the same budget and seed, the guided campaign
// breaks Gate and the random one does not; the guided violation shrinks
// to the path a(x), b(), c(y) with x narrowed to 1 and y to x.
func TestGuidedFindsThePath(t *testing.T) {
	ctx := context.Background()
	w, c := gateWorld(t, gateBudget)
	if v, err := fuzz.Invariants(ctx, t, w, c); err != nil || v != nil {
		t.Fatalf("random: Invariants = %v, %v; want no violation within %d sequences", v, err, gateBudget)
	}
	c.Coverage = true
	v, err := fuzz.Invariants(ctx, t, w, c)
	if err != nil || v == nil {
		t.Fatalf("guided: Invariants = %v, %v; want a violation within %d sequences", v, err, gateBudget)
	}
	t.Log(v, v.Report)
	var got []string
	for _, call := range v.Calls {
		got = append(got, call.String())
	}
	want := []string{"agent → Gate.a(x: 1)", "agent → Gate.b()", "agent → Gate.c(y: 1)"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("shrunk to\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if v.Trace == "" || !strings.Contains(v.Report, "coverage-guided campaign, seed") {
		t.Errorf("trace %q, report %q", v.Trace, v.Report)
	}
}

// TestCoverageCountsNewEdges: a call down a branch not taken before adds
// edges, the same call again adds none, and nothing is collected after
// Cover(nil).
func TestCoverageCountsNewEdges(t *testing.T) {
	ctx := context.Background()
	w, c := gateWorld(t, 1)
	gate, a := c.Targets[0].Address, c.Targets[0].ABI
	send := func(method string, args ...any) {
		data, err := a.Pack(method, args...)
		if err != nil {
			t.Fatal(err)
		}
		if r := w.Send(ctx, w.Agent(), gate, nil, data); !r.Succeeded() {
			t.Fatalf("%s: %s", method, r)
		}
	}
	cov := backend.NewCoverage()
	if err := w.Cover(cov); err != nil {
		t.Fatal(err)
	}
	send("a", big.NewInt(0))
	out := cov.Edges()
	send("a", big.NewInt(0))
	if cov.Edges() != out || out == 0 {
		t.Fatalf("edges after a(0) = %d, after it again = %d; want the same, not 0", out, cov.Edges())
	}
	send("a", big.NewInt(1)) // the other way at a's JUMPI
	in := cov.Edges()
	if in <= out {
		t.Errorf("edges after a(1) = %d, want more than %d", in, out)
	}
	if err := w.Cover(nil); err != nil {
		t.Fatal(err)
	}
	send("b")
	if cov.Edges() != in {
		t.Errorf("edges after Cover(nil) and b() = %d, want %d", cov.Edges(), in)
	}
}

// BenchmarkGuidedVsRandom: calls and seconds to the first violation of
// Gate's invariant, the guided campaign beside the random one on the same
// budget (benchBudget sequences of DefaultDepth calls) and seeds 1…5.
// found is the number of seeds that found it; calls/found and s/found are
// means over those (the calls of the shrinking not counted).
func BenchmarkGuidedVsRandom(b *testing.B) {
	const benchBudget = 2000
	for _, mode := range []struct {
		name   string
		guided bool
	}{{"guided", true}, {"random", false}} {
		b.Run(mode.name, func(b *testing.B) {
			for range b.N {
				found, calls, secs := 0, 0, 0.0
				for seed := uint64(1); seed <= 5; seed++ {
					w, c := gateWorld(b, benchBudget)
					c.Seed, c.Coverage = seed, mode.guided
					n, first, start := 0, 0, time.Now()
					var took time.Duration
					inv := c.Invariants[0]
					c.Invariants[0].Check = func(ctx context.Context, w *world.World) error {
						n++
						err := inv.Check(ctx, w)
						if err != nil && first == 0 {
							first, took = n, time.Since(start)
						}
						return err
					}
					if _, err := fuzz.Invariants(context.Background(), b, w, c); err != nil {
						b.Fatal(err)
					}
					if first > 0 {
						found, calls, secs = found+1, calls+first, secs+took.Seconds()
					}
				}
				b.ReportMetric(float64(found), "found")
				if found > 0 {
					b.ReportMetric(float64(calls)/float64(found), "calls/found")
					b.ReportMetric(secs/float64(found), "s/found")
				}
			}
		})
	}
}

// BenchmarkCoverageHook: calls per second with the coverage hook attached
// and without, in the same run, on Gate (a, b, c, d in turn: a few dozen
// opcodes each, the cost of a call is the World's Send) and on
// Hungry.eat(1000) (a loop of some 13,000 opcodes, where the hook's cost
// per opcode shows); ratio is hooked over plain. The two alternate, after
// a warm-up round.
func BenchmarkCoverageHook(b *testing.B) {
	ctx := context.Background()
	w, c := gateWorld(b, 1)
	gate, a := c.Targets[0].Address, c.Targets[0].ABI
	gateCalls := [][]byte{a.Methods["a"].ID, a.Methods["b"].ID, a.Methods["c"].ID, a.Methods["d"].ID}
	for i := range gateCalls[:3] {
		if i != 1 {
			gateCalls[i] = append(gateCalls[i], common.LeftPadBytes([]byte{byte(i + 1)}, 32)...)
		}
	}
	hungryArt, err := world.TargetArtifact("Hungry")
	if err != nil {
		b.Fatal(err)
	}
	hungry, err := w.DeployArtifact(ctx, w.Deployer(), hungryArt)
	if err != nil {
		b.Fatal(err)
	}
	for _, target := range []struct {
		name  string
		to    common.Address
		calls [][]byte
	}{
		{"gate", gate, gateCalls},
		{"loop", hungry, [][]byte{hungryArt.Pack("eat", big.NewInt(1000))}},
	} {
		b.Run(target.name, func(b *testing.B) {
			const perRound = 100
			round := func(cov *backend.Coverage) time.Duration {
				if err := w.Cover(cov); err != nil {
					b.Fatal(err)
				}
				defer func() { _ = w.Cover(nil) }()
				start := time.Now()
				for i := range perRound {
					if r := w.Send(ctx, w.Agent(), target.to, nil, target.calls[i%len(target.calls)]); !r.Succeeded() {
						b.Fatal(r)
					}
				}
				return time.Since(start)
			}
			var plain, hooked time.Duration
			round(nil) // warm up
			for i := range b.N {
				if i%2 == 0 { // alternate which goes first
					plain += round(nil)
					hooked += round(backend.NewCoverage())
				} else {
					hooked += round(backend.NewCoverage())
					plain += round(nil)
				}
			}
			n := float64(b.N * perRound)
			b.ReportMetric(n/plain.Seconds(), "plain-calls/s")
			b.ReportMetric(n/hooked.Seconds(), "hooked-calls/s")
			b.ReportMetric(plain.Seconds()/hooked.Seconds(), "ratio")
		})
	}
}

// TestGuidedShards: a guided campaign's shards split its runs as the
// random mode's do — shard 1/2 is the campaign's first half with its
// seed, shard 2/2 runs the other half from a seed of its own.
func TestGuidedShards(t *testing.T) {
	ctx := context.Background()
	w, c := gateWorld(t, 2*gateBudget)
	c.Coverage = true
	for i, seed := range []string{fmt.Sprintf("seed %d:", fuzz.DefaultSeed), ""} {
		c.Shard = fuzz.Shard{Index: i, Count: 2}
		v, err := fuzz.Invariants(ctx, t, w, c)
		if err != nil || v == nil {
			t.Fatalf("shard %s: Invariants = %v, %v; want a violation", c.Shard, v, err)
		}
		if !strings.Contains(v.Report, fmt.Sprintf(" of %d broke", gateBudget)) {
			t.Errorf("shard %s ran other than %d sequences: %s", c.Shard, gateBudget, v.Report)
		}
		if has := strings.Contains(v.Report, fmt.Sprintf("seed %d:", fuzz.DefaultSeed)); has != (seed != "") {
			t.Errorf("shard %s: the campaign's seed in the report = %t: %s", c.Shard, has, v.Report)
		}
	}
	c.Shard = fuzz.Shard{Index: 2, Count: 2}
	if _, err := fuzz.Invariants(ctx, t, w, c); err == nil {
		t.Error("shard 3/2: no error")
	}
}
