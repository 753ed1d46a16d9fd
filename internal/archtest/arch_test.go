package archtest

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/agentflightrecorder/afr/"

// goList runs go list from the module root with the given format.
func goList(t *testing.T, format string, pkgs ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-f", format}, pkgs...)...)
	cmd.Dir = "../.."
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// picture reads the dependency picture of docs/ARCHITECTURE.md: the lines
// "pkg → dep, dep" of its fenced block that follows the line
// "<!-- dependencies: kept true by internal/archtest -->".
func picture(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := bytes.Cut(b, []byte("<!-- dependencies: kept true by internal/archtest -->"))
	if !ok {
		t.Fatal("docs/ARCHITECTURE.md has no dependency picture")
	}
	deps := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(after))
	fences := 0
	for sc.Scan() && fences < 2 {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			fences++
			continue
		}
		pkg, list, ok := strings.Cut(line, "→")
		if fences != 1 || !ok {
			continue
		}
		var ds []string
		for _, d := range strings.Split(list, ",") {
			if d = strings.TrimSpace(d); d != "" {
				ds = append(ds, d)
			}
		}
		sort.Strings(ds)
		deps[strings.TrimSpace(pkg)] = ds
	}
	return deps
}

// TestDependencyPicture: every package of the module imports exactly the
// AFR packages docs/ARCHITECTURE.md shows it importing (test files aside),
// and the picture lists no package that does not exist.
func TestDependencyPicture(t *testing.T) {
	want := picture(t)
	seen := map[string]bool{}
	for _, line := range goList(t, `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		if strings.HasPrefix(pkg, "specs/") && pkg != "specs/afrspec" {
			continue // suites of specs: test files only
		}
		var got []string
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, module) {
				got = append(got, strings.TrimPrefix(imp, module))
			}
		}
		sort.Strings(got)
		seen[pkg] = true
		w, ok := want[pkg]
		if !ok {
			t.Errorf("package %s is missing from the picture in docs/ARCHITECTURE.md (it imports: %s)", pkg, strings.Join(got, ", "))
			continue
		}
		if strings.Join(got, ", ") != strings.Join(w, ", ") {
			t.Errorf("package %s imports %q; docs/ARCHITECTURE.md shows %q: update the picture or the imports", pkg, strings.Join(got, ", "), strings.Join(w, ", "))
		}
	}
	for pkg := range want {
		if !seen[pkg] {
			t.Errorf("docs/ARCHITECTURE.md shows package %s, which does not exist", pkg)
		}
	}
}

// TestLightVerifier: the verifier an auditor runs (package verifier and the
// formats it reads, and what the web page's WebAssembly is built from:
// verifier/light and verifier/wasm, listed for GOOS=js GOARCH=wasm) depends
// on no part of go-ethereum at all, so in particular on no node, no chain
// backend and no EVM.
func TestLightVerifier(t *testing.T) {
	deps := goList(t, `{{join .Deps "\n"}}`, "./verifier", "./format", "./verifier/light")
	t.Setenv("GOOS", "js")
	t.Setenv("GOARCH", "wasm")
	wasm := goList(t, `{{join .Deps "\n"}}`, "./verifier/wasm")
	if !slices.Contains(wasm, "github.com/agentflightrecorder/afr/verifier/light") {
		t.Fatalf("verifier/wasm (GOOS=js GOARCH=wasm) does not depend on verifier/light: %v", wasm)
	}
	for _, dep := range append(deps, wasm...) {
		if strings.HasPrefix(dep, "github.com/ethereum/go-ethereum") {
			t.Errorf("the light verifier depends on %s", dep)
		}
	}
}

// TestOnchainVerifierNoNode: the chain-backed checks read a chain through
// a client; they never start one and never execute the EVM.
func TestOnchainVerifierNoNode(t *testing.T) {
	forbidden := map[string]bool{}
	for _, p := range []string{"node", "eth", "ethclient/simulated", "core/vm"} {
		forbidden["github.com/ethereum/go-ethereum/"+p] = true
	}
	for _, dep := range goList(t, `{{join .Deps "\n"}}`, "./verifier/onchain", "./calldata", "./chain") {
		if forbidden[dep] {
			t.Errorf("verifier/onchain, calldata or chain depends on %s", dep)
		}
	}
}
