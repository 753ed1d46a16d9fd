package fuzz_test

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"pgregory.net/rapid"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/world"
	"github.com/agentflightrecorder/afr/world/fuzz"
)

// counterWorld is an in-process World with its Counter (bump(uint256 by)
// adds by to count) and Counter's artifact.
func counterWorld(t testing.TB) (*world.World, *world.Artifact) {
	t.Helper()
	w, err := world.New(context.Background(), world.Config{Backend: backend.KindInProcess})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	a, err := world.TargetArtifact("Counter")
	if err != nil {
		t.Fatal(err)
	}
	return w, a
}

// bumpAndCount sends Counter.bump(by) and returns Counter.count().
func bumpAndCount(ctx context.Context, t interface{ Fatalf(string, ...any) }, w *world.World, a *world.Artifact, by *big.Int) *big.Int {
	if res := w.Send(ctx, w.Agent(), w.Counter(), nil, a.Pack("bump", by)); !res.Succeeded() {
		t.Fatalf("bump(%s): %s", by, res)
	}
	return count(ctx, t, w, a)
}

func count(ctx context.Context, t interface{ Fatalf(string, ...any) }, w *world.World, a *world.Artifact) *big.Int {
	to := w.Counter()
	out, err := w.Client().CallContract(ctx, ethereum.CallMsg{To: &to, Data: a.Pack("count")}, nil)
	if err != nil {
		t.Fatalf("count(): %v", err)
	}
	return new(big.Int).SetBytes(out)
}

// TestFindRunsEachCaseFromTheSnapshot: bump(by) leaves count == by in
// every one of the 256 cases, which holds only if each case starts from
// count 0 again; the World is left as it was.
func TestFindRunsEachCaseFromTheSnapshot(t *testing.T) {
	ctx := context.Background()
	w, a := counterWorld(t)
	cases := 0
	c, err := fuzz.Find(ctx, t, w, a.ABI.Methods["bump"], fuzz.Options{}, func(rt *rapid.T, args []any) {
		cases++
		by := args[0].(*big.Int)
		if got := bumpAndCount(ctx, rt, w, a, by); got.Cmp(by) != 0 {
			rt.Fatalf("count after bump(%s) = %s", by, got)
		}
	})
	if err != nil || c != nil {
		t.Fatalf("Find = %v, %v; want no counterexample", c, err)
	}
	want := fuzz.DefaultRuns
	if testing.Short() {
		want /= 5 // rapid runs a fifth under -short
	}
	if cases != want {
		t.Errorf("ran %d cases, want %d", cases, want)
	}
	if n := count(ctx, t, w, a); n.Sign() != 0 {
		t.Errorf("count after the run = %s, want 0 (the World as it was)", n)
	}
}

// TestFindShrinks: "count stays below 1000" fails first for some large
// by; rapid shrinks it to 1000 exactly.
func TestFindShrinks(t *testing.T) {
	ctx := context.Background()
	w, a := counterWorld(t)
	c, err := fuzz.Find(ctx, t, w, a.ABI.Methods["bump"], fuzz.Options{NoFailFile: true}, below1000(ctx, w, a, nil))
	if err != nil || c == nil {
		t.Fatalf("Find = %v, %v; want a counterexample", c, err)
	}
	if got := c.Args[0].(*big.Int); got.Int64() != 1000 || !got.IsInt64() {
		t.Errorf("shrunk to by = %s, want 1000", got)
	}
	if c.String() != "bump(by: 1000)" {
		t.Errorf("String() = %q", c.String())
	}
}

func below1000(ctx context.Context, w *world.World, a *world.Artifact, seen *[]*big.Int) fuzz.Property {
	return func(rt *rapid.T, args []any) {
		by := args[0].(*big.Int)
		if seen != nil {
			*seen = append(*seen, by)
		}
		if n := bumpAndCount(ctx, rt, w, a, by); n.Cmp(big.NewInt(1000)) >= 0 {
			rt.Fatalf("count = %s, want < 1000", n)
		}
	}
}

// TestFindReplaysSavedCounterexample: a counterexample is saved under
// testdata/rapid/, and the next run tries it first.
func TestFindReplaysSavedCounterexample(t *testing.T) {
	ctx := context.Background()
	w, a := counterWorld(t)
	t.Chdir(t.TempDir())
	bump := a.ABI.Methods["bump"]
	if c, err := fuzz.Find(ctx, t, w, bump, fuzz.Options{}, below1000(ctx, w, a, nil)); err != nil || c == nil {
		t.Fatalf("first run: Find = %v, %v; want a counterexample", c, err)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "rapid", "*", "*.fail"))
	if len(files) != 1 {
		t.Fatalf("fail files after the first run: %v, want one", files)
	}
	var seen []*big.Int
	c, err := fuzz.Find(ctx, t, w, bump, fuzz.Options{Seed: 12345}, below1000(ctx, w, a, &seen))
	if err != nil || c == nil {
		t.Fatalf("second run: Find = %v, %v; want a counterexample", c, err)
	}
	if len(seen) == 0 || seen[0].Cmp(big.NewInt(1000)) < 0 {
		t.Errorf("second run's first case: %v, want the saved failing one (by >= 1000)", seen[:min(len(seen), 3)])
	}
	if got := c.Args[0].(*big.Int); got.Int64() != 1000 {
		t.Errorf("second run: by = %s, want 1000", got)
	}
	if again, _ := filepath.Glob(filepath.Join("testdata", "rapid", "*", "*.fail")); len(again) != 1 {
		t.Errorf("fail files after the replay: %v, want the one saved", again)
	}
	_ = os.RemoveAll("testdata")
}

// TestFindRejectsBadInput names the argument a bound cannot apply to.
func TestFindRejectsBadInput(t *testing.T) {
	w, a := counterWorld(t)
	_, err := fuzz.Find(context.Background(), t, w, a.ABI.Methods["bump"],
		fuzz.Options{Domain: fuzz.Domain{Bounds: map[string]fuzz.Bound{"amount": {}}}}, func(*rapid.T, []any) {})
	if err == nil || err.Error() != `fuzz: bound on "amount": the method has no argument of that name` {
		t.Errorf("Find with a bound on a missing argument: %v", err)
	}
}

// fatalTB is a test whose Fatalf is kept, not reported.
type fatalTB struct {
	*testing.T
	fatal string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
	panic(f)
}

// TestCheckFailsWithTheCounterexample: Check's failure names the method
// and the shrunk call, then rapid's report.
func TestCheckFailsWithTheCounterexample(t *testing.T) {
	ctx := context.Background()
	w, a := counterWorld(t)
	f := &fatalTB{T: t}
	func() {
		defer func() {
			if r := recover(); r != f {
				t.Fatalf("Check did not call Fatalf (recovered %v)", r)
			}
		}()
		fuzz.Check(ctx, f, w, a.ABI.Methods["bump"], fuzz.Options{NoFailFile: true}, below1000(ctx, w, a, nil))
	}()
	if want := "fuzz: bump(uint256) fails for bump(by: 1000)\n[rapid] failed after"; !strings.HasPrefix(f.fatal, want) {
		t.Errorf("Check's failure:\n%s\nwant it to start with %q", f.fatal, want)
	}
	if !strings.Contains(f.fatal, "count = 1000, want < 1000") {
		t.Errorf("Check's failure does not say what the property said:\n%s", f.fatal)
	}
}

// TestFindTooManySkips: a property that skips every case is an error,
// not a counterexample.
func TestFindTooManySkips(t *testing.T) {
	w, a := counterWorld(t)
	c, err := fuzz.Find(context.Background(), t, w, a.ABI.Methods["bump"], fuzz.Options{Runs: 4}, func(rt *rapid.T, _ []any) { rt.Skip() })
	if c != nil || err == nil || !strings.Contains(err.Error(), "too many cases skipped") {
		t.Errorf("Find = %v, %v; want the too-many-skips error", c, err)
	}
}

// BenchmarkFind measures fuzz cases per second on the in-process chain:
// one case is a World.Revert, a bump transaction and a count() call; the
// baseline, measured in the same run, is the same body without the
// fuzzer (a Revert, the transaction, the call):
//
//	go test -run '^$' -bench BenchmarkFind -benchtime 5x ./world/fuzz
func BenchmarkFind(b *testing.B) {
	ctx := context.Background()
	w, a := counterWorld(b)
	bump := a.ABI.Methods["bump"]
	b.Run("fuzz", func(b *testing.B) {
		cases := 0
		for b.Loop() {
			_, err := fuzz.Find(ctx, b, w, bump, fuzz.Options{}, func(rt *rapid.T, args []any) {
				cases++
				bumpAndCount(ctx, rt, w, a, args[0].(*big.Int))
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cases)/b.Elapsed().Seconds(), "cases/s")
	})
	b.Run("baseline", func(b *testing.B) {
		s, err := w.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		cases := 0
		for b.Loop() {
			for range fuzz.DefaultRuns {
				if err := w.Revert(ctx, s); err != nil {
					b.Fatal(err)
				}
				bumpAndCount(ctx, b, w, a, big.NewInt(int64(cases)))
				cases++
			}
		}
		b.ReportMetric(float64(cases)/b.Elapsed().Seconds(), "cases/s")
	})
}
