package archtest

import (
	"fmt"
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

// graph returns, for every package of the module (suites of specs aside:
// their code is test files), the AFR packages it imports (test files
// aside) and all its dependencies.
func graph(t *testing.T) (imports, deps map[string][]string) {
	t.Helper()
	imports, deps = map[string][]string{}, map[string][]string{}
	for _, line := range goList(t, `{{.ImportPath}} {{join .Imports ","}} {{join .Deps ","}}`, "./...") {
		f := strings.Split(line, " ")
		pkg := strings.TrimPrefix(f[0], module)
		if strings.HasPrefix(pkg, "specs/") && pkg != "specs/afrspec" {
			continue
		}
		imports[pkg] = nil
		for _, imp := range strings.Split(f[1], ",") {
			if strings.HasPrefix(imp, module) {
				imports[pkg] = append(imports[pkg], strings.TrimPrefix(imp, module))
			}
		}
		deps[pkg] = strings.Split(f[2], ",")
	}
	return imports, deps
}

// violations checks an import graph against the layers, the test-only
// packages and the forbidden imports, and returns what breaks them.
func violations(imports map[string][]string) []string {
	rank := map[string]int{}
	for i, l := range layers {
		for _, p := range l.packages {
			rank[p] = i
		}
	}
	test := map[string]bool{}
	for _, p := range testOnly {
		test[p] = true
	}
	var out []string
	pkgs := make([]string, 0, len(imports))
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		r, layered := rank[pkg]
		if !layered && !test[pkg] {
			out = append(out, fmt.Sprintf("package %s is in no layer (internal/archtest/layers_test.go): place it", pkg))
			continue
		}
		for _, imp := range imports[pkg] {
			switch ri, ok := rank[imp]; {
			case slices.Contains(forbiddenImports[pkg], imp):
				out = append(out, fmt.Sprintf("%s imports %s, which is forbidden", pkg, imp))
			case test[imp] && !test[pkg]:
				out = append(out, fmt.Sprintf("%s imports %s, a package for tests only", pkg, imp))
			case layered && ok && ri > r:
				out = append(out, fmt.Sprintf("%s (layer %d, %s) imports %s of layer %d (%s): an upward import", pkg, r, layers[r].name, imp, ri, layers[ri].name))
			}
		}
	}
	return out
}

// TestLayers: no package imports one of a higher layer, or one for tests
// only, or one it must not; every package is in a layer.
func TestLayers(t *testing.T) {
	imports, _ := graph(t)
	for _, v := range violations(imports) {
		t.Error(v)
	}
	for _, l := range layers {
		for _, p := range l.packages {
			if _, ok := imports[p]; !ok {
				t.Errorf("layer %q lists package %s, which does not exist", l.name, p)
			}
		}
	}
}

// TestLayersCatchUpwardImports: the rule fails on the arrows it exists to
// refuse — the formats importing the writer, the verifier importing the
// World, anchoring importing the verifier, the binary importing a test
// helper, a package nobody placed — and passes the same graph without them.
func TestLayersCatchUpwardImports(t *testing.T) {
	for _, c := range []struct {
		pkg, imp, want string
	}{
		{"format", "recorder", "format (layer 1, formats: everything docs/SPEC.md specifies, and the synthetic workload) imports recorder of layer 2"},
		{"verifier", "world", "upward import"},
		{"anchor", "verifier", "anchor imports verifier, which is forbidden"},
		{"cmd/afr", "internal/logtest", "a package for tests only"},
		{"newpkg", "format", "package newpkg is in no layer"},
	} {
		imports := map[string][]string{"format": nil, "recorder": {"format"}, "verifier": {"format"}, "anchor": {"recorder"}, "world": {"anchor"}, "cmd/afr": {"world"}}
		if v := violations(imports); len(v) != 0 {
			t.Fatalf("a graph that keeps the rule: %v", v)
		}
		imports[c.pkg] = append(imports[c.pkg], c.imp)
		v := violations(imports)
		if len(v) != 1 || !strings.Contains(v[0], c.want) {
			t.Errorf("%s → %s: violations %q, want one containing %q", c.pkg, c.imp, v, c.want)
		}
	}
}

// TestForbiddenDeps: the afr binary links no test framework and no package
// testing; the formats, the verifier, the writers and the receivers an
// agent host embeds link no go-ethereum.
func TestForbiddenDeps(t *testing.T) {
	_, deps := graph(t)
	for pkg, bad := range forbiddenDeps {
		ds, ok := deps[pkg]
		if !ok {
			t.Errorf("forbiddenDeps names package %s, which does not exist", pkg)
		}
		for _, b := range bad {
			var hits []string
			for _, d := range ds {
				if d == b || strings.HasPrefix(d, b) && strings.HasSuffix(b, "/") || strings.HasPrefix(d, b+"/") {
					hits = append(hits, d)
				}
			}
			if len(hits) > 0 {
				t.Errorf("%s depends on %s (%d packages: %s, …)", pkg, b, len(hits), hits[0])
			}
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
