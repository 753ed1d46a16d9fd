package strictjson

import (
	"errors"
	"io"
	"strings"
	"testing"
)

type call struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Items     []item         `json:"items"`
}

type item struct {
	ID int `json:"id"`
}

func TestRefusesEqualNames(t *testing.T) {
	for _, tc := range []struct {
		doc                    string
		pointer, first, second string
	}{
		{`{"name":"a","name":"b"}`, "", "name", "name"},
		{`{"name":"a","Name":"b"}`, "", "name", "Name"},
		{`{"NAME":"a","name":"b"}`, "", "NAME", "name"},
		{`{"arguments":{"path":"/tmp","PATH":"/etc"}}`, "/arguments", "path", "PATH"},
		{`{"items":[{"id":1},{"id":2,"ID":3}]}`, "/items/1", "id", "ID"},
		{`[[{"x":{"y":1,"y":2}}]]`, "/0/0/x", "y", "y"},
		{`{"kind":1,"\u212aind":2}`, "", "kind", "\u212aind"},     // Kelvin sign folds to k
		{`{"class":1,"cla\u017f\u017f":2}`, "", "class", "claſſ"}, // long s folds to s
		{`{"Σ":1,"ς":2}`, "", "Σ", "ς"},
		{`{"n\u0061me":1,"name":2}`, "", "name", "name"}, // equal after unescaping
	} {
		var v any
		err := Unmarshal([]byte(tc.doc), &v)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want *Error", tc.doc, err)
			continue
		}
		if e.Pointer != tc.pointer || e.First != tc.first || e.Second != tc.second {
			t.Errorf("%s: got %+v, want pointer %q, names %q and %q", tc.doc, *e, tc.pointer, tc.first, tc.second)
		}
		if v != nil {
			t.Errorf("%s: decoded %v from a refused document", tc.doc, v)
		}
		if Check([]byte(tc.doc)) == nil {
			t.Errorf("%s: Check accepted it", tc.doc)
		}
	}
}

func TestErrorNamesKeysAndPath(t *testing.T) {
	err := Check([]byte(`{"a":[{"b":{"x":1,"X":2}}]}`))
	if want := `strictjson: keys "x" and "X" in the object at "/a/0/b" are equal under case folding`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	err = Check([]byte(`{"a":1,"a":2}`))
	if want := `strictjson: duplicate key "a" in the top-level object`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestAcceptsDistinctNames(t *testing.T) {
	for _, doc := range []string{
		`{"name":"a","names":"b","nam":"c"}`,
		`{"a":{"x":1},"b":{"x":2},"c":[{"x":3},{"x":4}]}`, // equal names in sibling objects
		`{"x":"x","y":"X"}`,                               // values are not names
		`["a","A","a"]`,
		`{"k":{"k":{"K_":1}}}`,
		`"name"`, `1`, `null`, ` {} `,
	} {
		if err := Check([]byte(doc)); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

func TestMatchesNamesExactly(t *testing.T) {
	var c call
	if err := Unmarshal([]byte(`{"Name":"run","ARGUMENTS":{"x":1},"name":"echo"}`), &c); err == nil {
		t.Fatalf("accepted a case-folded pair: %+v", c)
	}
	c = call{}
	if err := Unmarshal([]byte(`{"Name":"run","Arguments":{"x":1}}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.Name != "" || c.Arguments != nil {
		t.Errorf("got %+v: names matched case-insensitively", c)
	}
	if err := Unmarshal([]byte(`{"name":"run","arguments":{"x":1},"items":[{"id":7}]}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.Name != "run" || c.Arguments["x"] != 1.0 || len(c.Items) != 1 || c.Items[0].ID != 7 {
		t.Errorf("got %+v", c)
	}
}

func TestUnknownMembers(t *testing.T) {
	doc := []byte(`{"name":"run","extra":true}`)
	var c call
	if err := Unmarshal(doc, &c); err != nil || c.Name != "run" {
		t.Errorf("Unmarshal: %v, %+v", err, c)
	}
	err := UnmarshalKnown(doc, &call{})
	if err == nil || !strings.Contains(err.Error(), "extra") {
		t.Errorf("UnmarshalKnown: got %v, want a refusal naming extra", err)
	}
	if err := UnmarshalKnown([]byte(`{"items":[{"id":1,"iD":2}]}`), &call{}); err == nil {
		t.Error("UnmarshalKnown accepted a case-folded pair")
	}
	if err := UnmarshalKnown([]byte(`{"items":[{"Id":1}]}`), &call{}); err == nil || !strings.Contains(err.Error(), "/items/0") {
		t.Errorf("UnmarshalKnown: got %v, want a refusal naming /items/0", err)
	}
}

func TestRefusesMalformed(t *testing.T) {
	for _, doc := range []string{
		``, ` `, `{`, `{"a":1`, `{"a":1}}`, `{"a":1} {"a":1}`, `{} x`, `1 2`, `[1,]`, `{'a':1}`,
		"{\"a\xff\":1}", "\"\xc3\x28\"", "{\"a\":\"\xed\xa0\x80\"}", `"\ud800"`,
	} {
		if err := Check([]byte(doc)); err == nil {
			t.Errorf("%q: accepted", doc)
		}
		var v any
		if err := Unmarshal([]byte(doc), &v); err == nil {
			t.Errorf("%q: Unmarshal accepted", doc)
		}
	}
	if err := Check([]byte(`{} {}`)); !errors.Is(err, ErrTrailingData) {
		t.Errorf("got %v, want ErrTrailingData", err)
	}
	if err := Check(nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("got %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestFold(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"name", "NAME", true}, {"k", "\u212a", true}, {"s", "\u017f", true}, {"ǅ", "ǆ", true},
		{"name", "names", false}, {"a_b", "ab", false}, {"ß", "ss", false}, {"i", "ı", false},
	} {
		if got := fold(tc.a) == fold(tc.b); got != tc.want || got != strings.EqualFold(tc.a, tc.b) {
			t.Errorf("fold(%q) == fold(%q): got %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// anyValue is the oneof of OTLP's AnyValue, by JSON name.
var anyValue = []string{"stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"}

func TestCheckProto(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"spans":[{"traceId":"01","trace_id":"02"}]}`, `strictjson: keys "traceId" and "trace_id" in the object at "/spans/0" name one protobuf field, or two fields of one oneof`},
		{`{"trace_id":"01","TraceId":"02"}`, `strictjson: keys "trace_id" and "TraceId" in the top-level object name one protobuf field, or two fields of one oneof`},
		{`{"value":{"stringValue":"x","intValue":"5"}}`, `strictjson: keys "stringValue" and "intValue" in the object at "/value" name one protobuf field, or two fields of one oneof`},
		{`{"value":{"string_value":"x","kvlistValue":{}}}`, `strictjson: keys "string_value" and "kvlistValue" in the object at "/value" name one protobuf field, or two fields of one oneof`},
		{`{"name":"a","Name":"b"}`, `strictjson: keys "name" and "Name" in the top-level object are equal under case folding`},
		{`{"name":"a","name":"b"}`, `strictjson: duplicate key "name" in the top-level object`},
	} {
		if err := CheckProto([]byte(c.doc), anyValue); err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.doc, err, c.want)
		}
	}
	for _, doc := range []string{
		`{"traceId":"01","spanId":"02","parentSpanId":"03","attributes":[{"key":"k","value":{"stringValue":"x"}},{"key":"k2","value":{"intValue":"5"}}]}`,
		`{"value":{"arrayValue":{"values":[{"stringValue":"a"},{"boolValue":true}]}}}`,
	} {
		if err := CheckProto([]byte(doc), anyValue); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}
