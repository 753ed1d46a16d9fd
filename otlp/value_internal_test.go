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
	if m, ok := v.(map[string]any); !ok || m["path"] != "a.txt" || m["n"] != int64(3) {
		t.Errorf("structured of a plain object = %#v, want the object with n an int64", v)
	}
}
