package evm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/agentflightrecorder/afr/evm"
	"github.com/agentflightrecorder/afr/internal/gethfixtures"
)

// gethCallFrame is a callTracer frame with the fields in the order of
// go-ethereum's callTracer output (and of its fixture harness): the fixture's
// expected result re-marshalled through it is the JSON AFR must give.
type gethCallFrame struct {
	From         common.Address  `json:"from"`
	Gas          *hexutil.Uint64 `json:"gas"`
	GasUsed      *hexutil.Uint64 `json:"gasUsed"`
	To           *common.Address `json:"to,omitempty"`
	Input        hexutil.Bytes   `json:"input"`
	Output       hexutil.Bytes   `json:"output,omitempty"`
	Error        string          `json:"error,omitempty"`
	RevertReason string          `json:"revertReason,omitempty"`
	Calls        []gethCallFrame `json:"calls,omitempty"`
	Logs         []gethCallLog   `json:"logs,omitempty"`
	Value        *hexutil.Big    `json:"value,omitempty"`
	Type         string          `json:"type"`
}

type gethCallLog struct {
	Address  common.Address `json:"address"`
	Topics   []common.Hash  `json:"topics"`
	Data     hexutil.Bytes  `json:"data"`
	Index    hexutil.Uint   `json:"index"`
	Position hexutil.Uint   `json:"position"`
}

// TestConformance executes every transaction of go-ethereum's callTracer and
// prestateTracer (diff mode) fixtures with AFR's EVM, from the fixture's
// pre-state and block, and compares the trace byte for byte with the
// fixture's expected one. Each subtest logs a "conformance-row" line (fixture,
// fork, transaction type, what it exercises, result) from which the table in
// docs/CONFORMANCE.md is generated.
func TestConformance(t *testing.T) {
	fixtures, err := gethfixtures.Load(gethfixtures.Folders...)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtures {
		t.Run(f.Name(), func(t *testing.T) {
			t.Parallel()
			res := applyFixture(t, f)
			var want, got []byte
			if f.CallTrace() {
				var exp gethCallFrame
				if err := json.Unmarshal(f.Result, &exp); err != nil {
					t.Fatalf("fixture result: %v", err)
				}
				if want, err = json.Marshal(exp); err != nil {
					t.Fatal(err)
				}
				if got, err = json.Marshal(res.Trace.Calls); err != nil {
					t.Fatal(err)
				}
				if exp.GasUsed == nil || uint64(*exp.GasUsed) != res.GasUsed {
					t.Errorf("Result.GasUsed = %d, the fixture's top frame used %v", res.GasUsed, exp.GasUsed)
				}
				if uint64(res.Trace.Calls.GasUsed) != res.GasUsed {
					t.Errorf("top frame gasUsed %d != Result.GasUsed %d", res.Trace.Calls.GasUsed, res.GasUsed)
				}
			} else {
				var exp any
				if err := json.Unmarshal(f.Result, &exp); err != nil {
					t.Fatalf("fixture result: %v", err)
				}
				if want, err = json.Marshal(exp); err != nil {
					t.Fatal(err)
				}
				if got, err = res.Trace.PrestateJSON(); err != nil {
					t.Fatal(err)
				}
			}
			if string(got) != string(want) {
				t.Errorf("trace differs from go-ethereum's fixture:\n%s\n got: %s\nwant: %s", strings.Join(jsonDiff(t, want, got), "\n"), got, want)
			}
			fork, kind, exercises := describe(t, f)
			result := "trace match"
			if t.Failed() {
				result = "MISMATCH"
			}
			t.Logf("conformance-row\t%s\t%s\t%s\t%s\t%s", f.Name(), fork, kind, exercises, result)
		})
	}
}

// applyFixture executes the fixture's signed transaction, traced with the
// fixture's tracer options, on a new Env holding its pre-state and block.
func applyFixture(t *testing.T, f *gethfixtures.Fixture) *evm.Result {
	t.Helper()
	cfg, err := f.TraceConfig()
	if err != nil {
		t.Fatal(err)
	}
	if !f.CallTrace() && !cfg.DiffMode {
		t.Fatalf("prestate fixture without diffMode: %s", f.TracerConfig)
	}
	block := f.Block()
	env, err := evm.New(evm.Config{ChainConfig: f.Genesis.Config, Alloc: f.Genesis.Alloc, Block: &block})
	if err != nil {
		t.Fatal(err)
	}
	res, err := env.ApplyRawTransaction(context.Background(), f.Input, &evm.CallOptions{Trace: cfg})
	if err != nil {
		t.Fatalf("apply transaction: %v", err)
	}
	if res.Trace == nil {
		t.Fatal("no trace")
	}
	return res
}

func describe(t *testing.T, f *gethfixtures.Fixture) (fork, kind, exercises string) {
	t.Helper()
	kind, err := f.TxType()
	if err != nil {
		t.Fatal(err)
	}
	if exercises, err = f.Exercises(); err != nil {
		t.Fatal(err)
	}
	return f.Fork(), kind, exercises
}

// jsonDiff lists where two JSON documents differ, one line per field:
// "calls[0].calls[2].gasUsed: want 0x.. got 0x.." or
// "post.0x….storage.0x…: want … got (absent)". When the documents hold the
// same values (a difference of key order or encoding only) it says so.
func jsonDiff(t *testing.T, want, got []byte) []string {
	t.Helper()
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	var out []string
	diffValue("", w, g, &out)
	if len(out) == 0 {
		out = append(out, "same fields and values: the difference is in key order or encoding")
	}
	return out
}

func diffValue(path string, want, got any, out *[]string) {
	show := func(v any) string {
		if v == nil {
			return "(absent)"
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			diffValue(join(path, k), w[k], g[k], out)
		}
		return
	case []any:
		g, ok := got.([]any)
		if !ok {
			break
		}
		for i := 0; i < len(w) || i < len(g); i++ {
			var wi, gi any
			if i < len(w) {
				wi = w[i]
			}
			if i < len(g) {
				gi = g[i]
			}
			diffValue(fmt.Sprintf("%s[%d]", path, i), wi, gi, out)
		}
		return
	}
	if show(want) != show(got) {
		*out = append(*out, fmt.Sprintf("%s: want %s got %s", path, show(want), show(got)))
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
