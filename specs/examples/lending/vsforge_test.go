package lending

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// The two sides of the comparison: the forge tests and the afrspec specs
// (the suite file holds the shared setup and helpers).
const (
	forgeTests = "test/Lending.t.sol"
	specFile   = "lending_test.go"
	suiteFile  = "lending_suite_test.go"
)

// body is one test's body: its name and its lines (without the opening and
// closing lines).
type body struct {
	name  string
	lines []string
}

var (
	forgeTest = regexp.MustCompile(`^(\s*)function (test\w*|setUp)\(`)
	specTest  = regexp.MustCompile(`^(\s*)(?:It\("(test\w*)"|var _ = (BeforeSuite)\()`)
)

// bodies splits a source file into the bodies that open with a line
// matching start (the indentation, then the name, in its submatches) and
// close with a line of the same indentation followed by end.
func bodies(path string, start *regexp.Regexp, end string) ([]body, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []body
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		m := start.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		b := body{name: strings.Join(m[2:], "")}
		for i++; i < len(lines) && lines[i] != m[1]+end; i++ {
			b.lines = append(b.lines, lines[i])
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s: %s has no closing %q", path, b.name, m[1]+end)
		}
		out = append(out, b)
	}
	return out, nil
}

// code counts the lines that are neither blank nor only a comment.
func code(lines []string) int {
	n := 0
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "//") {
			n++
		}
	}
	return n
}

// chars counts the characters of those lines, spaces and tabs left out: a
// line of Go and one of Solidity say different amounts.
func chars(lines []string) int {
	n := 0
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "//") {
			n += len(strings.Join(strings.Fields(t), ""))
		}
	}
	return n
}

// fileCode is code over a whole file.
func fileCode(path string) (int, error) {
	src, err := os.ReadFile(path)
	return code(strings.Split(string(src), "\n")), err
}

// twin is one test in both languages: lines of code of its body, and
// their characters.
type twin struct {
	name                  string
	forge, spec           int
	forgeChars, specChars int
}

// twins pairs each forge test with the spec of the same name; setUp and
// BeforeSuite, the shared setup, are the pair named "setUp".
func twins() ([]twin, error) {
	f, err := bodies(forgeTests, forgeTest, "}")
	if err != nil {
		return nil, err
	}
	s, err := bodies(specFile, specTest, "})")
	if err != nil {
		return nil, err
	}
	suite, err := bodies(suiteFile, specTest, "})")
	if err != nil {
		return nil, err
	}
	specs := map[string][]string{}
	for _, b := range append(s, suite...) {
		specs[strings.Replace(b.name, "BeforeSuite", "setUp", 1)] = b.lines
	}
	var out []twin
	for _, b := range f {
		sl, ok := specs[b.name]
		if !ok {
			return nil, fmt.Errorf("forge test %s has no afrspec twin in %s", b.name, specFile)
		}
		delete(specs, b.name)
		out = append(out, twin{name: b.name, forge: code(b.lines), spec: code(sl), forgeChars: chars(b.lines), specChars: chars(sl)})
	}
	for name := range specs {
		return nil, fmt.Errorf("spec %s has no forge twin in %s", name, forgeTests)
	}
	return out, nil
}

// linesTable is the lines-per-test comparison, as Markdown rows.
func linesTable() (string, error) {
	ts, err := twins()
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	sb.WriteString("| test | forge lines | afrspec lines | forge characters | afrspec characters |\n|---|---|---|---|---|\n")
	var f, s, fc, sc, n int
	for _, t := range ts {
		fmt.Fprintf(&sb, "| %s | %d | %d | %d | %d |\n", t.name, t.forge, t.spec, t.forgeChars, t.specChars)
		if t.name != "setUp" {
			f, s, fc, sc, n = f+t.forge, s+t.spec, fc+t.forgeChars, sc+t.specChars, n+1
		}
	}
	mean := func(x int) float64 { return float64(x) / float64(n) }
	fmt.Fprintf(&sb, "| mean of the %d tests | %.1f | %.1f | %.0f | %.0f |\n", n, mean(f), mean(s), mean(fc), mean(sc))
	ff, err := fileCode(forgeTests)
	if err != nil {
		return "", err
	}
	sf, err := fileCode(specFile)
	if err != nil {
		return "", err
	}
	uf, err := fileCode(suiteFile)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&sb, "| whole files (imports, setup, helpers): lines | %d (%s) | %d (%s + %s) | | |\n", ff, forgeTests, sf+uf, specFile, suiteFile)
	return sb.String(), nil
}

// TestTwins checks that every forge test has an afrspec spec of the same
// name and the other way round, at least 20 of them, and prints the lines
// per test of both (go test -v -run TestTwins).
func TestTwins(t *testing.T) {
	ts, err := twins()
	if err != nil {
		t.Fatal(err)
	}
	if len(ts)-1 < 20 {
		t.Fatalf("%d tests in both languages, want at least 20", len(ts)-1)
	}
	for _, tw := range ts {
		if tw.forge == 0 || tw.spec == 0 {
			t.Errorf("%s: an empty body (forge %d lines, afrspec %d)", tw.name, tw.forge, tw.spec)
		}
	}
	table, err := linesTable()
	if err != nil {
		t.Fatal(err)
	}
	t.Log("lines of code per test (non-blank, non-comment lines of each body):\n" + table)
}

// BenchmarkVsForge times the suite in both languages, interleaved in one
// run: each iteration is a round of one `forge test` process (after `forge
// build`) and one run of the suite's compiled test binary (after `go test
// -c`), their order alternating. Reported per test: the wall time of the
// process (start included), its CPU time (user and system, children
// included: less moved by other load on the machine than wall time), and
// the time each framework reports itself — forge's "finished in" for its
// suite (every test and its setUp), Ginkgo's run time of the specs
// (Isolate's revert included; BeforeSuite, which deploys once what forge's
// setUp deploys per test, apart) — and their ratios.
//
// forge test first runs `solc --version`, which with AFR's solc-js wrapper
// starts node (seconds on a loaded machine; milliseconds with a native
// solc): each round runs forge test twice, as configured
// (forge-wall-solcjs, wall-solcjs-ratio) and with a solc that answers
// --version at once (FOUNDRY_SOLC, a script handing everything else to the
// wrapper): forge as it runs with a native solc, which forge-wall and
// wall-ratio report. Builds are timed once, before the first round.
// AFR_BACKEND selects the specs' backend (default in-process).
// docs/PERFORMANCE.md has a run:
//
//	go test -run '^$' -bench BenchmarkVsForge -benchtime 5x ./specs/examples/lending
func BenchmarkVsForge(b *testing.B) {
	forge, err := exec.LookPath("forge")
	if err != nil {
		b.Skip("forge is not on PATH (make setup installs it in node_modules/.bin; make puts it on PATH)")
	}
	ts, err := twins()
	if err != nil {
		b.Fatal(err)
	}
	n := len(ts) - 1 // setUp is not a test
	buildOnce.Do(func() { builds, buildErr = buildBoth(forge) })
	if buildErr != nil {
		b.Fatal(buildErr)
	}

	var forgeWall, slowWall, forgeCPU, forgeOwn, specWall, specCPU, specOwn, recording, plain time.Duration
	var nRecording int
	var fastest time.Duration // Σ over rounds of the fastest spec: what Isolate and Ginkgo cost a spec at least
	fmt.Printf("BenchmarkVsForge, %d round(s); backend %q (\"\": in-process)\n", b.N, os.Getenv("AFR_BACKEND"))
	fmt.Printf("| round | forge wall | forge wall, solc-js probe | forge CPU | forge reports | afrspec wall | afrspec CPU | Ginkgo's specs | BeforeSuite |\n|---|---|---|---|---|---|---|---|---|\n")
	b.ResetTimer()
	for i := range b.N {
		var fw, slow, fc, fo, sw, sc, so, setup, least time.Duration
		runForge := func() {
			slow, _, _ = forgeRound(b, forge, n)
			fw, fc, fo = forgeRound(b, forge, n, "FOUNDRY_SOLC="+builds.solc)
		}
		runSpecs := func() {
			var r []types.SpecReport
			sw, sc, r = specRound(b, builds.bin, n)
			for _, s := range r {
				if s.LeafNodeType == types.NodeTypeBeforeSuite {
					setup = s.RunTime
				}
				if s.LeafNodeType != types.NodeTypeIt {
					continue
				}
				so += s.RunTime
				if least == 0 || s.RunTime < least {
					least = s.RunTime
				}
				if slices.ContainsFunc(s.ContainerHierarchyTexts, func(c string) bool { return strings.Contains(c, "attacks") }) {
					recording += s.RunTime
					nRecording++
				} else {
					plain += s.RunTime
				}
			}
		}
		if i%2 == 0 {
			runForge()
			runSpecs()
		} else {
			runSpecs()
			runForge()
		}
		fmt.Printf("| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", i+1, ms(fw), ms(slow), ms(fc), ms(fo), ms(sw), ms(sc), ms(so), ms(setup))
		forgeWall, slowWall, forgeCPU, forgeOwn = forgeWall+fw, slowWall+slow, forgeCPU+fc, forgeOwn+fo
		specWall, specCPU, specOwn = specWall+sw, specCPU+sc, specOwn+so
		fastest += least
	}
	b.StopTimer()
	per := func(d time.Duration, count int) float64 {
		return float64(d) / float64(time.Millisecond) / float64(count)
	}
	tests := b.N * n
	b.ReportMetric(per(forgeWall, tests), "forge-wall-ms/test")
	b.ReportMetric(per(slowWall, tests), "forge-wall-solcjs-ms/test")
	b.ReportMetric(per(forgeCPU, tests), "forge-cpu-ms/test")
	b.ReportMetric(per(forgeOwn, tests), "forge-ms/test")
	b.ReportMetric(per(specWall, tests), "afrspec-wall-ms/spec")
	b.ReportMetric(per(specCPU, tests), "afrspec-cpu-ms/spec")
	b.ReportMetric(per(specOwn, tests), "afrspec-ms/spec")
	b.ReportMetric(per(recording, nRecording), "recording-ms/spec")
	b.ReportMetric(per(plain, tests-nRecording), "plain-ms/spec")
	b.ReportMetric(per(fastest, b.N), "fastest-ms/spec")
	b.ReportMetric(float64(specWall)/float64(forgeWall), "wall-ratio")
	b.ReportMetric(float64(specWall)/float64(slowWall), "wall-solcjs-ratio")
	b.ReportMetric(float64(specCPU)/float64(forgeCPU), "cpu-ratio")
	b.ReportMetric(float64(specOwn)/float64(forgeOwn), "own-ratio")
	b.ReportMetric(0, "ns/op") // a round is not the unit: the metrics above are
	fmt.Printf("%d tests, %d of them recording evidence in afrspec; builds: forge build --force %s, go test -c %s\n",
		n, nRecording/b.N, ms(builds.forge), ms(builds.spec))
	if table, err := linesTable(); err == nil {
		fmt.Print("lines of code per test:\n" + table)
	}
}

// built is what buildBoth built: the suite's test binary, a solc that
// answers --version at once, and how long both builds took.
type built struct {
	bin, solc   string
	forge, spec time.Duration
}

// The builds of a benchmark process, made once: the benchmark runs more
// than once (b.N = 1 first).
var (
	buildOnce sync.Once
	builds    built
	buildErr  error
)

// buildBoth compiles the forge project from scratch and the suite's test
// binary (with Go's build cache as it is), and writes the quick solc.
func buildBoth(forge string) (b built, err error) {
	dir, err := os.MkdirTemp("", "lending-bench")
	if err != nil {
		return b, err
	}
	b.bin = filepath.Join(dir, "lending.test")
	for _, c := range []struct {
		d    *time.Duration
		args []string
	}{{&b.forge, []string{forge, "build", "--force"}}, {&b.spec, []string{"go", "test", "-c", "-o", b.bin, "."}}} {
		start := time.Now()
		if out, err := exec.Command(c.args[0], c.args[1:]...).CombinedOutput(); err != nil {
			return b, fmt.Errorf("%s: %v\n%s", strings.Join(c.args, " "), err, out)
		}
		*c.d = time.Since(start)
	}
	wrapper, err := filepath.Abs("../../../contracts/solc")
	if err != nil {
		return b, err
	}
	version, err := exec.Command(wrapper, "--version").Output()
	if err != nil {
		return b, fmt.Errorf("%s --version: %v", wrapper, err)
	}
	b.solc = filepath.Join(dir, "solc")
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then\ncat <<'VERSION'\n" + strings.TrimSpace(string(version)) +
		"\nVERSION\nexit 0\nfi\nexec '" + wrapper + "' \"$@\"\n"
	return b, os.WriteFile(b.solc, []byte(script), 0o755)
}

// run runs cmd and returns its output, its wall time and the CPU time
// (user and system) of the process and the children it waited for.
func run(cmd *exec.Cmd) (out []byte, wall, cpu time.Duration, err error) {
	start := time.Now()
	out, err = cmd.CombinedOutput()
	wall = time.Since(start)
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return out, wall, cpu, err
}

// forgeRound runs `forge test` once (with env added to the environment)
// and returns its wall and CPU time and the suite time it reports, after
// checking that all n tests passed without compiling anything.
func forgeRound(b *testing.B, forge string, n int, env ...string) (wall, cpu, own time.Duration) {
	b.Helper()
	cmd := exec.Command(forge, "test")
	cmd.Env = append(os.Environ(), env...)
	out, wall, cpu, err := run(cmd)
	if err != nil {
		b.Fatalf("forge test: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(\d+) passed; 0 failed; 0 skipped; finished in ([\d.]+)(µs|ms|s)`).FindSubmatch(out)
	if m == nil || string(m[1]) != strconv.Itoa(n) || !bytes.Contains(out, []byte("No files changed, compilation skipped")) {
		b.Fatalf("forge test did not pass %d tests without compiling:\n%s", n, out)
	}
	own, err = time.ParseDuration(string(m[2]) + string(m[3]))
	if err != nil {
		b.Fatal(err)
	}
	return wall, cpu, own
}

// specRound runs the suite's test binary once and returns its wall and
// CPU time and Ginkgo's spec reports, after checking that all n specs
// passed. The fuzz specs (fuzz_test.go, label fuzz) have no forge twin in
// test/Lending.t.sol and are left out.
func specRound(b *testing.B, bin string, n int) (wall, cpu time.Duration, specs []types.SpecReport) {
	b.Helper()
	report := filepath.Join(b.TempDir(), "report.json")
	out, wall, cpu, err := run(exec.Command(bin, "-test.run", "^TestLending$", "-test.count=1", "-ginkgo.label-filter=!fuzz", "-ginkgo.json-report="+report))
	if err != nil {
		b.Fatalf("%s: %v\n%s", bin, err, out)
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		b.Fatal(err)
	}
	var reports []types.Report
	if err := json.Unmarshal(raw, &reports); err != nil {
		b.Fatalf("reading Ginkgo's report: %v", err)
	}
	if len(reports) != 1 || !reports[0].SuiteSucceeded {
		b.Fatalf("the suite did not pass:\n%s", out)
	}
	passed := 0
	for _, s := range reports[0].SpecReports {
		if s.LeafNodeType == types.NodeTypeIt && s.State == types.SpecStatePassed {
			passed++
		}
	}
	if passed != n {
		b.Fatalf("%d specs passed, want %d:\n%s", passed, n, out)
	}
	return wall, cpu, reports[0].SpecReports
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
