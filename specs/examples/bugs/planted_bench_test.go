package bugs

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/world"
	"github.com/agentflightrecorder/afr/world/fuzz"
)

// modes are the ways BenchmarkPlanted runs a campaign, one sub-benchmark
// each: set changes the campaign. Forge's test runs in every mode's
// sub-benchmark, so that each line compares figures of the same moment.
var modes = []struct {
	name string
	set  func(*fuzz.Campaign)
}{
	{"random", func(*fuzz.Campaign) {}},
	{"coverage", func(c *fuzz.Campaign) { c.Coverage = true }},
}

// counter counts a campaign's calls: calls is every call made (shrinking
// included), found the calls made until the first violation, at firstAt.
type counter struct {
	calls, found int
	firstAt      time.Time
}

// counted returns c with invariants that count the calls they are checked
// after (every invariant is checked once after every call: the first one
// counts).
func counted(c fuzz.Campaign) (fuzz.Campaign, *counter) {
	n := &counter{}
	invs := make([]fuzz.Invariant, len(c.Invariants))
	for i, inv := range c.Invariants {
		invs[i] = fuzz.Invariant{Name: inv.Name, Check: func(ctx context.Context, w *world.World) error {
			if i == 0 {
				n.calls++
			}
			err := inv.Check(ctx, w)
			if err != nil && n.found == 0 {
				n.found, n.firstAt = n.calls, time.Now()
			}
			return err
		}}
	}
	c.Invariants = invs
	return c, n
}

// BenchmarkPlanted runs, for every pattern and campaign mode, in each
// iteration: the afrspec campaign on the planted bug until its shrunk
// violation (fixed seed: the same calls every iteration), forge's
// invariant test of the same bug (FOUNDRY_PROFILE=planted forge test
// --match-contract Planted<Pattern>Test, its failure persistence cleared
// first so that it searches rather than replays), then both on the fixed
// twin, where both make runs × depth calls or fewer and the invariant
// holds. Reported: time to find (afr-find-ms: the campaign in this
// process, shrinking included; afr-first-ms: until its first violation,
// before shrinking; forge-find-ms: the forge process, start
// included; forge-own-ms: the time forge reports for its suite), calls
// spent until the first violation (afr-calls, forge-calls: the calls of
// the runs before the failing one and of its sequence before shrinking),
// shrunk lengths (afr-shrunk, forge-shrunk), invariant calls per second on
// the fixed twin (afr-calls/s; forge-calls/s over its process,
// forge-own-calls/s over its own time) and their ratios; afr-setup-ms
// (once: the World's start and the deployments) is what a process of the
// suite adds to afr-find-ms. forge test probes its solc with --version,
// which through AFR's solc-js wrapper starts node: the runs use a solc
// that answers --version at once (FOUNDRY_SOLC), as a native solc would.
// docs/PERFORMANCE.md has a run:
//
//	go test -run '^$' -bench BenchmarkPlanted -benchtime 3x ./specs/examples/bugs
func BenchmarkPlanted(b *testing.B) {
	forge, err := exec.LookPath("forge")
	if err != nil {
		b.Skip("forge is not on PATH (make setup installs it in node_modules/.bin; make puts it on PATH)")
	}
	if out, err := exec.Command(forge, "build").CombinedOutput(); err != nil {
		b.Fatalf("forge build: %v\n%s", err, out)
	}
	solc, err := quickSolc(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	start := time.Now()
	w, err := world.New(ctx, world.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	cs, err := setup(ctx, w)
	if err != nil {
		b.Fatal(err)
	}
	setupTime := time.Since(start)

	for _, p := range patterns {
		for _, m := range modes {
			b.Run(p.forge+"/"+m.name, func(b *testing.B) {
				var afrFind, afrFirst, afrFixed, forgeFind, forgeOwn, forgeFixed, forgeFixedOwn time.Duration
				var afrCalls, afrShrunk, afrFixedCalls, forgeCalls, forgeShrunk, forgeFixedCalls int
				for range b.N {
					c, n := counted(cs[p.forge].planted)
					m.set(&c)
					t0 := time.Now()
					v, err := fuzz.Invariants(ctx, b, w, c)
					afrFind += time.Since(t0)
					if err != nil || v == nil {
						b.Fatalf("%s: the campaign found no violation of the planted bug (error: %v)", p.name, err)
					}
					afrFirst += n.firstAt.Sub(t0)
					afrCalls, afrShrunk = afrCalls+n.found, afrShrunk+len(v.Calls)

					if err := os.RemoveAll(filepath.Join("cache", "invariant")); err != nil {
						b.Fatal(err)
					}
					f := forgeInvariant(b, forge, solc, "planted", "Planted"+p.forge+"Test")
					if f.shrunk == 0 {
						b.Fatalf("%s: forge found no violation of the planted bug:\n%s", p.name, f.out)
					}
					forgeFind, forgeOwn = forgeFind+f.wall, forgeOwn+f.own
					forgeCalls, forgeShrunk = forgeCalls+f.calls+f.original, forgeShrunk+f.shrunk

					c, n = counted(cs[p.forge].fixed)
					m.set(&c)
					t0 = time.Now()
					if v, err := fuzz.Invariants(ctx, b, w, c); err != nil || v != nil {
						b.Fatalf("%s: the fixed twin: violation %v, error %v", p.name, v, err)
					}
					afrFixed += time.Since(t0)
					afrFixedCalls += n.calls

					f = forgeInvariant(b, forge, solc, "default", "Fixed"+p.forge+"Test")
					if f.shrunk != 0 || f.calls == 0 {
						b.Fatalf("%s: forge on the fixed twin did not pass:\n%s", p.name, f.out)
					}
					forgeFixed, forgeFixedOwn, forgeFixedCalls = forgeFixed+f.wall, forgeFixedOwn+f.own, forgeFixedCalls+f.calls
				}
				per := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(b.N) }
				rate := func(calls int, d time.Duration) float64 { return float64(calls) / d.Seconds() }
				b.ReportMetric(per(afrFind), "afr-find-ms")
				b.ReportMetric(per(afrFirst), "afr-first-ms")
				b.ReportMetric(per(forgeFind), "forge-find-ms")
				b.ReportMetric(per(forgeOwn), "forge-own-ms")
				b.ReportMetric(float64(afrCalls)/float64(b.N), "afr-calls")
				b.ReportMetric(float64(forgeCalls)/float64(b.N), "forge-calls")
				b.ReportMetric(float64(afrShrunk)/float64(b.N), "afr-shrunk")
				b.ReportMetric(float64(forgeShrunk)/float64(b.N), "forge-shrunk")
				b.ReportMetric(rate(afrFixedCalls, afrFixed), "afr-calls/s")
				b.ReportMetric(rate(forgeFixedCalls, forgeFixed), "forge-calls/s")
				b.ReportMetric(rate(forgeFixedCalls, forgeFixedOwn), "forge-own-calls/s")
				b.ReportMetric(rate(afrFixedCalls, afrFixed)/rate(forgeFixedCalls, forgeFixed), "calls/s-ratio")
				b.ReportMetric(rate(afrFixedCalls, afrFixed)/rate(forgeFixedCalls, forgeFixedOwn), "own-calls/s-ratio")
				b.ReportMetric(float64(setupTime)/float64(time.Millisecond), "afr-setup-ms")
				b.ReportMetric(0, "ns/op") // an iteration is not the unit: the metrics above are
			})
		}
	}
}

// forgeRun is what one forge invariant test printed: its output, the
// process's wall time, the suite time forge reports, the calls of its
// completed runs, and for a failure the lengths of the failing sequence
// before and after shrinking (0 when it passed).
type forgeRun struct {
	out              []byte
	wall, own        time.Duration
	calls            int
	original, shrunk int
}

var (
	forgeSequence = regexp.MustCompile(`\[Sequence\] \(original: (\d+), shrunk: (\d+)\)`)
	forgeRuns     = regexp.MustCompile(`\(runs: \d+, calls: (\d+), reverts: \d+\)`)
	forgeFinished = regexp.MustCompile(`finished in ([\d.]+)(µs|ms|s)`)
)

// forgeInvariant runs `forge test --match-contract ^contract$` under a
// foundry.toml profile with the quick solc, checking that it compiled
// nothing and ran the one test, and parses its output.
func forgeInvariant(b *testing.B, forge, solc, profile, contract string) forgeRun {
	b.Helper()
	cmd := exec.Command(forge, "test", "--match-contract", "^"+contract+"$")
	cmd.Env = append(os.Environ(), "FOUNDRY_PROFILE="+profile, "FOUNDRY_SOLC="+solc)
	t0 := time.Now()
	out, _ := cmd.CombinedOutput() // a planted bug's test fails: the output says how
	r := forgeRun{out: out, wall: time.Since(t0)}
	fin := forgeFinished.FindSubmatch(out)
	if fin == nil || !strings.Contains(string(out), "Ran 1 test for test/Planted.t.sol:"+contract) ||
		!strings.Contains(string(out), "No files changed, compilation skipped") {
		b.Fatalf("forge test did not run %s without compiling:\n%s", contract, out)
	}
	var err error
	if r.own, err = time.ParseDuration(string(fin[1]) + string(fin[2])); err != nil {
		b.Fatal(err)
	}
	if m := forgeRuns.FindSubmatch(out); m != nil {
		r.calls, _ = strconv.Atoi(string(m[1]))
	}
	if m := forgeSequence.FindSubmatch(out); m != nil {
		r.original, _ = strconv.Atoi(string(m[1]))
		r.shrunk, _ = strconv.Atoi(string(m[2]))
	}
	return r
}

// quickSolc writes, in dir, a solc that answers --version at once and
// hands everything else to AFR's solc-js wrapper, and returns its path.
func quickSolc(dir string) (string, error) {
	wrapper, err := filepath.Abs("../../../contracts/solc")
	if err != nil {
		return "", err
	}
	version, err := exec.Command(wrapper, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", wrapper, err)
	}
	path := filepath.Join(dir, "solc")
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then\ncat <<'VERSION'\n" + strings.TrimSpace(string(version)) +
		"\nVERSION\nexit 0\nfi\nexec '" + wrapper + "' \"$@\"\n"
	return path, os.WriteFile(path, []byte(script), 0o755)
}
