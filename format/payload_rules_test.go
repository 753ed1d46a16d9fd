package format_test

import (
	"bytes"
	"errors"
	"math/big"
	"strconv"
	"testing"
	"time"

	"github.com/fxamacker/cbor/v2"

	"github.com/agentflightrecorder/afr/format"
)

// checkRule asserts that the write path refuses p with ErrInvalidPayload and
// that the read path rejects the bytes a plain CBOR encoder makes of it, so
// neither side accepts what the other refuses.
func checkRule(t *testing.T, p *format.Payload) {
	t.Helper()
	if _, err := format.EncodePayload(p); !errors.Is(err, format.ErrInvalidPayload) {
		t.Errorf("EncodePayload: %v, want ErrInvalidPayload", err)
	}
	b, err := format.Marshal(p)
	if err != nil {
		return // not even encodable: nothing can be read back
	}
	if _, err := format.DecodePayload(b); err == nil {
		t.Errorf("DecodePayload accepted the %d bytes", len(b))
	}
}

// checkClean asserts that p is written and read back byte for byte.
func checkClean(t *testing.T, p *format.Payload) {
	t.Helper()
	b, err := format.EncodePayload(p)
	if err != nil {
		t.Fatalf("EncodePayload: %v", err)
	}
	back, err := format.DecodePayload(b)
	if err != nil {
		t.Fatalf("DecodePayload: %v", err)
	}
	if again, _ := format.EncodePayload(back); !bytes.Equal(again, b) {
		t.Fatalf("round trip changed the bytes")
	}
}

func TestIntentChainFields(t *testing.T) {
	intent := func(target, value []byte) *format.Payload {
		return &format.Payload{Intent: &format.Intent{Tool: "transfer", ChainID: 1, Target: target, Value: value}}
	}
	for name, p := range map[string]*format.Payload{
		"target-19-bytes":    intent(make([]byte, 19), nil),
		"target-21-bytes":    intent(make([]byte, 21), nil),
		"target-1-byte":      intent([]byte{1}, nil),
		"value-leading-zero": intent(nil, []byte{0, 1}),
		"value-zero-byte":    intent(nil, []byte{0}),
		"value-33-bytes":     intent(nil, append([]byte{1}, make([]byte, 32)...)),
	} {
		t.Run(name, func(t *testing.T) { checkRule(t, p) })
	}
	max256 := bytes.Repeat([]byte{0xff}, 32)
	for name, p := range map[string]*format.Payload{
		"no-chain-fields": intent(nil, nil),
		"target-20-bytes": intent(make([]byte, 20), nil),
		"value-1":         intent(nil, []byte{1}),
		"value-2^256-1":   intent(make([]byte, 20), max256),
	} {
		t.Run(name, func(t *testing.T) { checkClean(t, p) })
	}
}

// freeForm places v in every kind of position a free-form value can take:
// an argument, an extension, inside a list and inside a nested map.
func freeForm(v any) map[string]*format.Payload {
	return map[string]*format.Payload{
		"arg":         {Intent: &format.Intent{Tool: "t", Args: map[string]any{"a": v}}},
		"ext":         {Ext: map[string]any{"x": v}},
		"ext-in-list": {Ext: map[string]any{"x": []any{"ok", v}}},
		"arg-in-map":  {Intent: &format.Intent{Tool: "t", Args: map[string]any{"m": map[string]any{"k": v, "l": "ok"}}}},
	}
}

func TestFreeFormValues(t *testing.T) {
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	belowMin := new(big.Int).Neg(new(big.Int).Add(two64, big.NewInt(1)))
	bad := map[string]any{
		"tag":               cbor.Tag{Number: 100, Content: uint64(0)},
		"tag-0-time-string": cbor.Tag{Number: 0, Content: "2026-01-01T00:00:00Z"},
		"bignum-2^64":       two64,
		"bignum-below-min":  *belowMin,
		"simple-16":         cbor.SimpleValue(16),
		"simple-undefined":  cbor.SimpleValue(23),
		"raw-message":       cbor.RawMessage{0xd8, 0x64, 0x00},
		"int-keyed-map":     map[int]string{1: "x"},
		"invalid-utf8":      "a\xffb",
		"invalid-utf8-key":  map[string]any{"a\xff": 1},
	}
	for name, v := range bad {
		for pos, p := range freeForm(v) {
			t.Run(name+"/"+pos, func(t *testing.T) { checkRule(t, p) })
		}
	}
	// Go values the encoder would turn into maps with keys of its own
	// choosing are refused on the write path (use map[string]any).
	for name, v := range map[string]any{"struct": struct{ A int }{1}, "time": time.Unix(1, 0)} {
		for pos, p := range freeForm(v) {
			if _, err := format.EncodePayload(p); !errors.Is(err, format.ErrInvalidPayload) {
				t.Errorf("%s/%s: EncodePayload: %v, want ErrInvalidPayload", name, pos, err)
			}
		}
	}
	good := map[string]any{
		"null": nil, "bool": true, "uint": uint64(1 << 63), "int": int64(-1 << 63), "float": 0.5,
		"bytes": []byte{1, 2}, "text": "ok", "uint-2^64-1": new(big.Int).Sub(two64, big.NewInt(1)),
		"neg-2^64": new(big.Int).Neg(two64), "typed-list": []string{"a", "b"}, "typed-map": map[string]uint64{"a": 1},
	}
	for name, v := range good {
		for pos, p := range freeForm(v) {
			t.Run(name+"/"+pos, func(t *testing.T) { checkClean(t, p) })
		}
	}
}

// nested returns a value of n nested lists around 0.
func nested(n int) any {
	var v any = uint64(0)
	for range n {
		v = []any{v}
	}
	return v
}

// The payload map is level 1, ext level 2 and intent.args level 3: 16
// levels are allowed, 17 are not, on either path.
func TestNestingLimit(t *testing.T) {
	checkClean(t, &format.Payload{Ext: map[string]any{"x": nested(14)}})
	checkRule(t, &format.Payload{Ext: map[string]any{"x": nested(15)}})
	checkClean(t, &format.Payload{Intent: &format.Intent{Tool: "t", Args: map[string]any{"x": nested(13)}}})
	checkRule(t, &format.Payload{Intent: &format.Intent{Tool: "t", Args: map[string]any{"x": nested(14)}}})
}

// 65,536 items in one array or map are allowed, 65,537 are not, wherever
// the array is.
func TestItemLimit(t *testing.T) {
	list := func(n int) []any { return make([]any, n) }
	checkClean(t, &format.Payload{Ext: map[string]any{"x": list(65536)}})
	checkRule(t, &format.Payload{Ext: map[string]any{"x": list(65537)}})
	checkClean(t, &format.Payload{Context: &format.ContextProvenance{Parents: make([]uint64, 65536)}})
	checkRule(t, &format.Payload{Context: &format.ContextProvenance{Parents: make([]uint64, 65537)}})
	checkRule(t, &format.Payload{Policy: &format.PolicyEvaluation{PolicyID: "p", Decision: format.DecisionAllow, Reasons: make([]string, 65537)}})
	big := map[string]any{}
	for i := range 65537 {
		big[strconv.Itoa(i)] = nil
	}
	checkRule(t, &format.Payload{Ext: big})
}

func TestTypedFieldRules(t *testing.T) {
	addr := bytes.Repeat([]byte{0xee}, 20)
	topic := bytes.Repeat([]byte{0xdd}, 32)
	for name, p := range map[string]*format.Payload{
		"chain-state-address-19":  {Effects: []format.Effect{{ChainState: &format.ChainState{ChainID: 1, Address: addr[:19]}}}},
		"chain-state-address-nil": {Effects: []format.Effect{{ChainState: &format.ChainState{ChainID: 1}}}},
		"chain-state-slot-31":     {Effects: []format.Effect{{ChainState: &format.ChainState{ChainID: 1, Address: addr, Slot: topic[:31]}}}},
		"chain-log-address-21":    {Effects: []format.Effect{{ChainLog: &format.ChainLog{ChainID: 1, Address: append(addr, 0)}}}},
		"chain-log-topic-31":      {Effects: []format.Effect{{ChainLog: &format.ChainLog{ChainID: 1, Address: addr, Topics: []format.Bytes{topic, topic[:31]}}}}},
		"chain-log-topic-nil":     {Effects: []format.Effect{{ChainLog: &format.ChainLog{ChainID: 1, Address: addr, Topics: []format.Bytes{nil}}}}},
		"chain-log-5-topics":      {Effects: []format.Effect{{ChainLog: &format.ChainLog{ChainID: 1, Address: addr, Topics: []format.Bytes{topic, topic, topic, topic, topic}}}}},
		"input-digest-nil":        {Context: &format.ContextProvenance{Inputs: []format.Input{{Source: "user"}}}},
		"tool-invalid-utf8":       {Intent: &format.Intent{Tool: "\xff"}},
		"reason-invalid-utf8":     {Policy: &format.PolicyEvaluation{PolicyID: "p", Decision: format.DecisionDeny, Reasons: []string{"ok", "\xfe"}}},
		"path-invalid-utf8":       {Effects: []format.Effect{{FileWrite: &format.FileWrite{Path: "a\xff"}}}},
	} {
		t.Run(name, func(t *testing.T) { checkRule(t, p) })
	}
	for name, p := range map[string]*format.Payload{
		"chain-state-balance": {Effects: []format.Effect{{ChainState: &format.ChainState{ChainID: 1, Address: addr, After: []byte{5}}}}},
		"chain-log-4-topics":  {Effects: []format.Effect{{ChainLog: &format.ChainLog{ChainID: 1, Address: addr, Topics: []format.Bytes{topic, topic, topic, topic}}}}},
		"input-empty-digest":  {Context: &format.ContextProvenance{Inputs: []format.Input{{Source: "", Digest: []byte{}}}}},
		"empty-tool":          {Intent: &format.Intent{}},
		"empty-code":          {Code: &format.CodeProvenance{}},
		"exit-code-0":         {Execution: &format.Execution{Status: format.StatusOK, ExitCode: new(int64)}},
	} {
		t.Run(name, func(t *testing.T) { checkClean(t, p) })
	}
}
