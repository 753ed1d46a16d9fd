package otlp

import "testing"

// An attribute holding JSON is structured only when every reader reads
// the same value: with a name given twice, or in two case-folded
// spellings, it stays the text it was sent as (before, the last name won,
// and the recorded arguments differed from what a case-sensitive reader
// of the same text sees).
func TestStructuredRefusesEqualNames(t *testing.T) {
	for _, s := range []string{`{"path":"a.txt","path":"/etc/passwd"}`, `{"cmd":"ls","CMD":"rm -rf /"}`} {
		v, raw := structured(s)
		if got, ok := v.(string); !ok || got != s || string(raw) != s {
			t.Errorf("structured(%s) = %#v, %q; want the text itself", s, v, raw)
		}
	}
	v, _ := structured(`{"path":"a.txt","n":3}`)
	if m, ok := v.(map[string]any); !ok || m["path"] != "a.txt" || m["n"] != uint64(3) {
		t.Errorf("structured of a plain object = %#v, want the object with n a uint64", v)
	}
}

// JSON text holding an integer that no 64-bit integer holds stays the text
// it was sent as (before, it became the nearest float64: arguments
// recorded as another number than the tool was given); numbers that fit
// are read as event JSON reads them (docs/SPEC.md, "Event JSON").
func TestStructuredKeepsNumbers(t *testing.T) {
	for _, s := range []string{`{"amount":18446744073709551617}`, `[1,-9223372036854775809]`, `{"x":1e999}`} {
		v, raw := structured(s)
		if got, ok := v.(string); !ok || got != s || string(raw) != s {
			t.Errorf("structured(%s) = %#v, %q; want the text itself", s, v, raw)
		}
	}
	v, _ := structured(`{"max":18446744073709551615,"min":-9223372036854775808,"f":0.5}`)
	if m, ok := v.(map[string]any); !ok || m["max"] != uint64(1<<64-1) || m["min"] != int64(-1<<63) || m["f"] != 0.5 {
		t.Errorf("structured = %#v", v)
	}
}
