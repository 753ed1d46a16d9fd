package strictjson

import (
	"bytes"
	stdjson "encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	segjson "github.com/segmentio/encoding/json"
)

// sdkUnmarshal reads data as the MCP Go SDK reads a frame
// (go-sdk/internal/json): segmentio's decoder matching names exactly, the
// last of equal names winning.
func sdkUnmarshal(data []byte, v any) error {
	d := segjson.NewDecoder(bytes.NewReader(data))
	d.DontMatchCaseInsensitiveStructFields()
	return d.Decode(v)
}

// foldPair reports whether an object in data holds two names equal under
// strings.EqualFold, read with encoding/json's tokenizer (an oracle
// independent of Check's).
func foldPair(data []byte) bool { return pair(data, strings.EqualFold) }

// pair reports whether an object in data holds two names that equal
// says are equal.
func pair(data []byte, equal func(a, b string) bool) bool {
	d := stdjson.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		names  []string
		name   bool // the next string token is a member name
	}
	var stack []*frame
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if s, ok := tok.(string); ok && top != nil && top.object && top.name {
			for _, n := range top.names {
				if equal(n, s) {
					return true
				}
			}
			top.names = append(top.names, s)
			top.name = false
			continue
		}
		switch tok {
		case stdjson.Delim('{'), stdjson.Delim('['):
			if top != nil && top.object {
				top.name = true
			}
			stack = append(stack, &frame{object: tok == stdjson.Delim('{'), name: true})
		case stdjson.Delim('}'), stdjson.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			if top != nil && top.object {
				top.name = true
			}
		}
	}
}

// FuzzUnmarshal checks that a document Check accepts is read the same way by
// the package and by the MCP SDK's exact reader, and that Check refuses
// exactly the documents in which an object holds a pair of names equal under
// case folding.
func FuzzUnmarshal(f *testing.F) {
	for _, seed := range []string{
		`{"name":"echo","arguments":{"text":"hi"},"items":[{"id":1}]}`,
		`{"name":"echo","name":"rm"}`,
		`{"name":"echo","Name":"rm","arguments":{},"ARGUMENTS":{"path":"/"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":"a"}}}`,
		`{"items":[{"id":1},{"id":2,"ID":3}]}`,
		`{"\u212aind":1,"kind":2}`,
		`{"seq":0,"clock":0,"after":[],"kind":"tool_call","actor":{"id":"agent"},"intent":"x"}`,
		`{"anchors":[],"anchors":[{"log_id":1}]}`,
		`[1,"a",null,true,{"a":{"b":[]}}]`,
		`{} {}`, `{"a":`, "{\"a\xff\":1}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Check(data)
		if utf8.Valid(data) && stdjson.Valid(data) {
			if pair := foldPair(data); (err == nil) == pair {
				t.Fatalf("Check: %v, but a case-folded pair: %v", err, pair)
			}
		} else if err == nil {
			t.Fatalf("accepted a document encoding/json refuses or invalid UTF-8")
		}
		if err != nil {
			return
		}
		var got, want call
		if Unmarshal(data, &got) == nil {
			if err := sdkUnmarshal(data, &want); err != nil {
				t.Fatalf("the SDK refuses what strictjson reads: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("strictjson read %+v, the SDK %+v", got, want)
			}
		}
		var gotAny, wantAny any
		if Unmarshal(data, &gotAny) == nil && sdkUnmarshal(data, &wantAny) == nil && !reflect.DeepEqual(gotAny, wantAny) {
			t.Fatalf("strictjson read %#v, the SDK %#v", gotAny, wantAny)
		}
	})
}

// protoEqual is CheckProto's equality of two names, for the oneof
// anyValue: one field's names, or two fields of the oneof.
func protoEqual(a, b string) bool {
	field := func(s string) string { return strings.ReplaceAll(s, "_", "") }
	a, b = field(a), field(b)
	in := func(s string) bool {
		return slices.ContainsFunc(anyValue, func(o string) bool { return strings.EqualFold(o, s) })
	}
	return strings.EqualFold(a, b) || in(a) && in(b)
}

// FuzzCheckProto: CheckProto refuses exactly what Check refuses and the
// documents in which an object holds two names of one protobuf field or two
// fields of one oneof.
func FuzzCheckProto(f *testing.F) {
	for _, seed := range []string{
		`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"01","spanId":"02","attributes":[{"key":"k","value":{"stringValue":"x"}}]}]}]}]}`,
		`{"traceId":"01","trace_id":"02"}`, `{"value":{"stringValue":"x","intValue":"5"}}`,
		`{"value":{"string_value":"x"}}`, `{"a_b":1,"A__B":2}`, `{"name":"a","Name":"b"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := CheckProto(data, anyValue)
		if Check(data) != nil {
			if err == nil {
				t.Fatal("CheckProto accepted what Check refuses")
			}
			return
		}
		if p := pair(data, protoEqual); (err == nil) == p {
			t.Fatalf("CheckProto: %v, but a pair: %v", err, p)
		}
	})
}
