package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// ParseEventJSON parses one event in AFR's JSON form (docs/SPEC.md, "Event
// JSON"), as agents not written in Go send it: field names as in the JSON
// tags, enumerations by name ("tool_call", "allow", "ok"), byte strings as
// 0x-hex. Unknown fields are an error, not silently dropped. Numbers in
// args and ext become unsigned or signed integers when integral and
// float64 otherwise, so they keep their CBOR type. The payload is checked
// with Payload.Validate, so a parsed event is one the recorder accepts.
func ParseEventJSON(b []byte) (Event, error) {
	var ev Event
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	d.DisallowUnknownFields()
	if err := d.Decode(&ev); err != nil {
		return Event{}, fmt.Errorf("format: event JSON: %w", err)
	}
	if d.More() {
		return Event{}, fmt.Errorf("format: event JSON: data after the event object")
	}
	if ev.Tool == "" {
		return Event{}, fmt.Errorf("format: event JSON: tool is required")
	}
	if !ev.Kind.Valid() {
		return Event{}, fmt.Errorf("format: event JSON: kind is required (tool_call, approval, delegation, chain_tx, policy, observation)")
	}
	var err error
	if ev.Payload.Intent != nil {
		if ev.Payload.Intent.Args, err = normalizeMap(ev.Payload.Intent.Args); err != nil {
			return Event{}, err
		}
	}
	if ev.Payload.Ext, err = normalizeMap(ev.Payload.Ext); err != nil {
		return Event{}, err
	}
	if err := ev.Payload.Validate(); err != nil {
		return Event{}, fmt.Errorf("format: event JSON: %w", err)
	}
	return ev, nil
}

func normalizeMap(m map[string]any) (map[string]any, error) {
	for k, v := range m {
		n, err := normalizeJSON(v)
		if err != nil {
			return nil, fmt.Errorf("format: event JSON: %q: %w", k, err)
		}
		m[k] = n
	}
	return m, nil
}

func normalizeJSON(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if u, err := strconv.ParseUint(x.String(), 10, 64); err == nil {
			return u, nil
		}
		if i, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return i, nil
		}
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("number %s out of range", x)
		}
		return f, nil
	case map[string]any:
		return normalizeMap(x)
	case []any:
		for i := range x {
			n, err := normalizeJSON(x[i])
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
		return x, nil
	}
	return v, nil
}
