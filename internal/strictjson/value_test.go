package strictjson

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestNumber(t *testing.T) {
	for _, c := range []struct {
		lit  string
		want any
	}{
		{"0", uint64(0)},
		{"-0", int64(0)},
		{"18446744073709551615", uint64(math.MaxUint64)},
		{"-1", int64(-1)},
		{"-9223372036854775808", int64(math.MinInt64)},
		{"0.1", 0.1},
		{"1e2", 100.0},
		{"1E2", 100.0},
		{"18446744073709551616.0", float64(1 << 64)},
		{"-1.5e-3", -0.0015},
	} {
		got, err := Number(c.lit)
		if err != nil || got != c.want {
			t.Errorf("Number(%s) = %#v, %v; want %#v", c.lit, got, err, c.want)
		}
	}
	for _, c := range []struct{ lit, want string }{
		{"18446744073709551616", "number 18446744073709551616 exceeds 64 bits; send it as a string"},
		{"-9223372036854775809", "number -9223372036854775809 exceeds 64 bits; send it as a string"},
		{strings.Repeat("9", 40), "number 999999999999999999999999… exceeds 64 bits; send it as a string"},
		{"1e999", "number 1e999 is out of the range of a float64; send it as a string"},
		{"-1e999", "number -1e999 is out of the range of a float64; send it as a string"},
	} {
		if _, err := Number(c.lit); err == nil || err.Error() != c.want {
			t.Errorf("Number(%s): got %v, want %s", c.lit, err, c.want)
		}
	}
}

func TestValue(t *testing.T) {
	got, err := Value([]byte(` {"a":[1,-2,0.5,"s",true,false,null,{}],"b":{"c":[]}} `))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": []any{uint64(1), int64(-2), 0.5, "s", true, false, nil, map[string]any{}}, "b": map[string]any{"c": []any{}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
	if _, err := Value([]byte(`{"a":{"b":[0,18446744073709551616]}}`)); err == nil || err.Error() != `strictjson: at "/a/b/1": number 18446744073709551616 exceeds 64 bits; send it as a string` {
		t.Errorf("big integer: %v", err)
	}
	var e *Error
	if _, err := Value([]byte(`{"a":1,"A":2}`)); !errors.As(err, &e) {
		t.Errorf("folded pair: %v", err)
	}
	for _, bad := range []string{``, `{"a":1} 2`, `[1,`, "\"\xff\""} {
		if _, err := Value([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// numbers turns encoding/json's json.Numbers into what Number makes of
// them, reporting false when Number refuses one.
func numbers(v any) (any, bool) {
	switch x := v.(type) {
	case stdjson.Number:
		n, err := Number(x.String())
		return n, err == nil
	case []any:
		for i := range x {
			var ok bool
			if x[i], ok = numbers(x[i]); !ok {
				return nil, false
			}
		}
	case map[string]any:
		for k := range x {
			var ok bool
			if x[k], ok = numbers(x[k]); !ok {
				return nil, false
			}
		}
	}
	return v, true
}

// FuzzValue: Value reads what encoding/json reads, numbers as Number says
// (an oracle with another tokenizer), and refuses a document exactly when
// Check does or a number literal does not fit.
func FuzzValue(f *testing.F) {
	for _, seed := range []string{
		`{"a":[1,-2,0.5,"s",true,false,null,{}],"b":{"c":[]}}`,
		`{"max":18446744073709551615,"min":-9223372036854775808,"big":18446744073709551616}`,
		`[1e999,-0,1E2,0.1]`, `{"path":"/etc/hosts","limit":10}`, `{"a":1,"A":2}`, `"x"`, `7`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Value(data)
		if Check(data) != nil {
			if err == nil {
				t.Fatal("Value accepted what Check refuses")
			}
			return
		}
		d := stdjson.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var want any
		if derr := d.Decode(&want); derr != nil {
			t.Fatalf("encoding/json refuses what Check accepts: %v", derr)
		}
		want, ok := numbers(want)
		if ok != (err == nil) {
			t.Fatalf("Value: %v; every number fits: %v", err, ok)
		}
		if ok && !reflect.DeepEqual(got, want) {
			t.Fatalf("Value read %#v, encoding/json %#v", got, want)
		}
	})
}
