package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// jsonDecoders are the JSON libraries whose decoding calls are counted:
// untrusted JSON is read through internal/strictjson only (docs/SPEC.md,
// "Reading JSON").
var jsonDecoders = map[string][]string{
	"encoding/json":                               {"Unmarshal", "NewDecoder"},
	"github.com/go-json-experiment/json":          {"Unmarshal", "UnmarshalRead", "UnmarshalDecode"},
	"github.com/go-json-experiment/json/jsontext": {"NewDecoder"},
	"github.com/segmentio/encoding/json":          {"Unmarshal", "NewDecoder"},
}

// jsonExceptions are the non-test files that decode JSON without
// internal/strictjson: how many calls each makes, and why the input is not
// untrusted (or is read exactly in another way).
var jsonExceptions = map[string]struct {
	calls  int
	reason string
}{
	"format/eventjson.go":              {2, "after strictjson.Check, checkJSON matches every name exactly against the schema; encoding/json for UseNumber"},
	"internal/cachefile/cachefile.go":  {1, "AFR's own cache files (fork and transaction caches)"},
	"calldata/registry.go":             {1, "a contract artifact the operator supplies, whose ABI go-ethereum's abi.JSON then reads"},
	"chain/backend/anvil/anvil.go":     {2, "JSON-RPC answers of the anvil process the package started"},
	"contracts/artifacts/artifacts.go": {1, "artifacts embedded in the binary"},
	"contracts/artifacts/forge.go":     {1, "forge's build output of the project's contracts"},
	"evm/rules.go":                     {2, "a chain config or genesis file into go-ethereum's params.ChainConfig, whose JSON is encoding/json's"},
	"evm/trace.go":                     {3, "the output of go-ethereum's tracers run in this process"},
	"tracesim/record.go":               {1, "a recorded replay written by tracesim"},
	"tracesim/replay.go":               {2, "JSON-RPC answers into go-ethereum's types, whose JSON is encoding/json's"},
	"tracesim/txcache.go":              {3, "AFR's own transaction cache, into go-ethereum's types"},
	"serve/client.go":                  {2, "the answers of afr serve to its client"},
	"verifier/index.go":                {1, "json.Marshal's output of a payload the verifier decoded"},
	"world/forensics.go":               {1, "the World's own log of its session"},
	"specs/afrspec/gas.go":             {1, "the spec harness's checked-in gas snapshot"},
}

// jsonCalls counts, in one Go file, the calls of the decoders of
// jsonDecoders.
func jsonCalls(t *testing.T, path string) int {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	funcs := map[string][]string{} // local name → counted functions
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		fs, ok := jsonDecoders[p]
		if !ok {
			continue
		}
		name := filepath.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		funcs[name] = fs
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		sel, ok := node.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && slices.Contains(funcs[x.Name], sel.Sel.Name) {
			n++
		}
		return true
	})
	return n
}

// TestJSONReadStrictly: no non-test file outside internal/strictjson
// decodes JSON with another library, but for the exceptions above; a new
// call fails, and so does an exception that no longer holds.
func TestJSONReadStrictly(t *testing.T) {
	skip := map[string]bool{"internal/strictjson": true}
	for _, p := range testOnly {
		skip[p] = true
	}
	got := map[string]int{}
	for _, line := range goList(t, `{{.ImportPath}} {{.Dir}} {{join .GoFiles ","}}`, "./...") {
		f := strings.Split(line, " ")
		pkg := strings.TrimPrefix(f[0], module)
		if skip[pkg] || (strings.HasPrefix(pkg, "specs/") && pkg != "specs/afrspec") || len(f) < 3 || f[2] == "" {
			continue
		}
		for _, name := range strings.Split(f[2], ",") {
			if n := jsonCalls(t, filepath.Join(f[1], name)); n > 0 {
				got[filepath.ToSlash(filepath.Join(pkg, name))] = n
			}
		}
	}
	var bad []string
	for file, n := range got {
		switch e, ok := jsonExceptions[file]; {
		case !ok:
			bad = append(bad, fmt.Sprintf("%s decodes JSON %d time(s) without internal/strictjson (docs/SPEC.md, \"Reading JSON\"): use strictjson.Unmarshal, or add an exception with its reason", file, n))
		case n != e.calls:
			bad = append(bad, fmt.Sprintf("%s decodes JSON %d time(s) without internal/strictjson, its exception says %d (%s)", file, n, e.calls, e.reason))
		}
	}
	for file := range jsonExceptions {
		if _, ok := got[file]; !ok {
			bad = append(bad, fmt.Sprintf("%s no longer decodes JSON without internal/strictjson: remove its exception", file))
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// TestJSONCallsCounted: the counter sees calls through a renamed import
// and of every listed decoder.
func TestJSONCallsCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.go")
	src := `package x

import (
	j "encoding/json"
	v2 "github.com/go-json-experiment/json"
	"github.com/segmentio/encoding/json"
	"bytes"
)

func f(b []byte, v any) {
	j.Unmarshal(b, v)
	j.NewDecoder(bytes.NewReader(b)).Decode(v)
	v2.UnmarshalRead(bytes.NewReader(b), v)
	json.Unmarshal(b, v)
	j.Marshal(v)
}
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := jsonCalls(t, path); n != 4 {
		t.Errorf("counted %d calls, want 4", n)
	}
}
