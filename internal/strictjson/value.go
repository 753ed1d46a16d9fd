package strictjson

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Number is the value of a JSON number literal as AFR keeps it
// (docs/SPEC.md, "Event JSON"): an integer literal (no fraction, no
// exponent) in 0 … 2^64−1 is a uint64, one in −2^63 … −1 an int64, and any
// other number the nearest float64 (RFC 8259 §6: readers agree on
// IEEE-754 doubles). An integer literal beyond 64 bits is an error, and so
// is a number beyond the range of a float64: either would be recorded as
// another number than the one sent.
func Number(lit string) (any, error) {
	if !strings.ContainsAny(lit, ".eE") {
		if u, err := strconv.ParseUint(lit, 10, 64); err == nil {
			return u, nil
		}
		if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return i, nil
		}
		return nil, fmt.Errorf("number %s exceeds 64 bits; send it as a string", abbreviate(lit))
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return nil, fmt.Errorf("number %s is out of the range of a float64; send it as a string", abbreviate(lit))
	}
	return f, nil
}

// abbreviate cuts a long number literal for an error message.
func abbreviate(lit string) string {
	const keep = 24
	if len(lit) <= keep {
		return lit
	}
	return lit[:keep] + "…"
}

// Value reads data, which Check must accept, as a generic value: objects
// are map[string]any, arrays []any, strings string, true and false bool,
// null nil, and numbers as Number says. An error naming the JSON Pointer
// reports a number Number refuses.
func Value(data []byte) (any, error) {
	if err := Check(data); err != nil {
		return nil, err
	}
	return readValue(jsontext.NewDecoder(bytes.NewBuffer(data))) // read in place
}

// readValue reads the next value of d.
func readValue(d *jsontext.Decoder) (any, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 't', 'f':
		return tok.Bool(), nil
	case '"':
		return tok.String(), nil
	case '0':
		v, err := Number(tok.String())
		if err != nil {
			return nil, fmt.Errorf("strictjson: at %q: %w", d.StackPointer(), err)
		}
		return v, nil
	case '{':
		m := map[string]any{}
		for d.PeekKind() != '}' {
			name, err := d.ReadToken()
			if err != nil {
				return nil, err
			}
			if m[name.String()], err = readValue(d); err != nil {
				return nil, err
			}
		}
		_, err = d.ReadToken()
		return m, err
	case '[':
		a := []any{}
		for d.PeekKind() != ']' {
			v, err := readValue(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err = d.ReadToken()
		return a, err
	}
	return nil, fmt.Errorf("strictjson: unexpected token %v", tok)
}
