package otlp

import (
	"github.com/agentflightrecorder/afr/internal/strictjson"

	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// clean makes an attribute value (pcommon.Value.AsRaw: nil, bool, int64,
// float64, string, []byte, []any, map[string]any) an ext value: text that
// is not UTF-8 has its bad bytes replaced, so that a payload never fails
// for them.
func clean(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ToValidUTF8(x, "\uFFFD")
	case []any:
		for i := range x {
			x[i] = clean(x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[strings.ToValidUTF8(k, "\uFFFD")] = clean(e)
		}
		return out
	}
	return v
}

// structured returns an attribute that may carry JSON as text (the GenAI
// conventions allow arguments, results and messages either structured or
// as a JSON string) as a structured value, and the bytes it was sent as
// (the string itself, or the value's JSON).
func structured(v any) (any, []byte) {
	if s, ok := v.(string); ok {
		// Structured only when every reader would read the same value
		// (docs/SPEC.md, "Reading JSON"): text with a name given twice, or
		// in two case-folded spellings, stays text.
		if strictjson.Check([]byte(s)) != nil {
			return clean(s), []byte(s)
		}
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var parsed any
		if err := d.Decode(&parsed); err == nil && !d.More() {
			return clean(fromJSON(parsed)), []byte(s)
		}
		return clean(s), []byte(s)
	}
	v = clean(v)
	raw, err := json.Marshal(v)
	if err != nil { // a NaN or an infinity: digest the text form
		raw = fmt.Appendf(nil, "%v", v)
	}
	return v, raw
}

// fromJSON turns json.Numbers into int64 when they are integers that fit,
// else float64.
func fromJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil && !math.IsInf(f, 0) {
			return f
		}
		return x.String()
	case []any:
		for i := range x {
			x[i] = fromJSON(x[i])
		}
	case map[string]any:
		for k, e := range x {
			x[k] = fromJSON(e)
		}
	}
	return v
}

// truncate cuts s to at most n bytes at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
