package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"

	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// ParseEventJSON parses one event in AFR's JSON form (docs/SPEC.md, "Event
// JSON"), as agents not written in Go send it: field names as in the JSON
// tags, enumerations by name ("tool_call", "allow", "ok"), byte strings as
// 0x-hex. Unknown fields are an error, not silently dropped. Numbers in
// args and ext become unsigned or signed integers when integral and
// float64 otherwise, so they keep their CBOR type. The payload is checked
// with Payload.Validate, so a parsed event is one the recorder accepts.
func ParseEventJSON(b []byte) (Event, error) {
	var raw any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&raw); err != nil {
		return Event{}, fmt.Errorf("format: event JSON: %w", syntaxError(err))
	}
	if _, err := d.Token(); err != io.EOF {
		return Event{}, fmt.Errorf("format: event JSON: data after the event object")
	}
	if raw == nil {
		return Event{}, fmt.Errorf("format: event JSON: want an object, got null")
	}
	// Check refuses a pair of equal or case-folded equal names (and invalid
	// UTF-8); checkJSON then matches every name exactly against Event's, so
	// the decoding below, case-insensitive on its own, reads what any peer
	// reads (docs/SPEC.md, "Reading JSON").
	if err := strictjson.Check(b); err != nil {
		return Event{}, fmt.Errorf("format: event JSON: %w", err)
	}
	if err := checkJSON("", raw, reflect.TypeFor[Event]()); err != nil {
		return Event{}, fmt.Errorf("format: event JSON: %w", err)
	}
	var ev Event
	d = json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	d.DisallowUnknownFields()
	if err := d.Decode(&ev); err != nil {
		return Event{}, fmt.Errorf("format: event JSON: %w", err)
	}
	if ev.Tool == "" {
		return Event{}, fmt.Errorf("format: event JSON: tool is required")
	}
	if !ev.Kind.Valid() {
		return Event{}, fmt.Errorf("format: event JSON: kind is required (one of %s)", kindNames)
	}
	for _, f := range []struct{ name, v string }{{"run", ev.Run}, {"id", ev.ID}} {
		if len(f.v) > MaxIDLength {
			return Event{}, fmt.Errorf("format: event JSON: %s is %d bytes, limit %d", f.name, len(f.v), MaxIDLength)
		}
	}
	if x := ev.Payload.Execution; x != nil {
		x.Output.bound()
	}
	ev.Payload.Content.bound()
	var err error
	if ev.Payload.Intent != nil {
		if ev.Payload.Intent.Args, err = normalizeMap("payload.intent.args", ev.Payload.Intent.Args); err != nil {
			return Event{}, err
		}
	}
	if ev.Payload.Ext, err = normalizeMap("payload.ext", ev.Payload.Ext); err != nil {
		return Event{}, err
	}
	if err := ev.Payload.Validate(); err != nil {
		return Event{}, fmt.Errorf("format: event JSON: payload: %w", err)
	}
	return ev, nil
}

// syntaxError says where malformed JSON broke.
func syntaxError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%w (at byte %d)", err, se.Offset)
	}
	if errors.Is(err, io.EOF) {
		return errors.New("empty input: want one event object")
	}
	return err
}

func normalizeMap(path string, m map[string]any) (map[string]any, error) {
	for k, v := range m {
		n, err := normalizeJSON(join(path, k), v)
		if err != nil {
			return nil, err
		}
		m[k] = n
	}
	return m, nil
}

func normalizeJSON(path string, v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		n, err := strictjson.Number(x.String())
		if err != nil {
			return nil, fmt.Errorf("format: event JSON: %s: %w", path, err)
		}
		return n, nil
	case map[string]any:
		return normalizeMap(path, x)
	case []any:
		for i := range x {
			n, err := normalizeJSON(join(path, strconv.Itoa(i)), x[i])
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
		return x, nil
	}
	return v, nil
}

// bound completes a text map given as its text alone: it sets the size
// and keeps a text over MaxText as its digest (docs/SPEC.md, "Event JSON").
// A size that is given and wrong is left for Validate to refuse.
func (t *Text) bound() {
	if t == nil || t.Text == "" {
		return
	}
	if t.Size == 0 {
		t.Size = uint64(len(t.Text))
	}
	if len(t.Text) > MaxText && len(t.Digest) == 0 && t.Size == uint64(len(t.Text)) {
		*t = *NewText([]byte(t.Text))
	}
}
