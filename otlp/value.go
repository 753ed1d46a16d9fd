package otlp

import (
	"github.com/agentflightrecorder/afr/internal/strictjson"

	"encoding/json"
	"fmt"
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
// as a JSON text) as a structured value, and the bytes it was sent as (the
// string itself, or the value's JSON). Text is structured only when every
// reader reads the same value from it (docs/SPEC.md, "Reading JSON": no
// name given twice, or in two case-folded spellings) and every number in
// it keeps its value (an integer beyond 64 bits would be rounded); other
// text stays text.
func structured(v any) (any, []byte) {
	if s, ok := v.(string); ok {
		if parsed, err := strictjson.Value([]byte(s)); err == nil {
			return clean(parsed), []byte(s)
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
