package otlp

import (
	"fmt"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// anyValueFields are the JSON names of the fields of AnyValue's oneof: an
// OTLP/JSON value naming two of them is refused (strictjson.CheckProto).
var anyValueFields = []string{"stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"}

// uniqueKeys reports a key that m, or a map in one of its values at any
// depth, holds twice, comparing keys as they are recorded (text that is
// not UTF-8 with its bad bytes replaced). OTLP attribute keys MUST be
// unique, and readers of a list with a repeated key disagree: pcommon's
// Map.Get takes the first, Map.AsRaw the last.
func uniqueKeys(m pcommon.Map) error {
	seen := make(map[string]bool, m.Len())
	var err error
	m.Range(func(k string, v pcommon.Value) bool {
		c := strings.ToValidUTF8(k, "\uFFFD")
		if seen[c] {
			err = fmt.Errorf("attribute key %q given twice", c)
			return false
		}
		seen[c] = true
		if err = uniqueIn(v); err != nil {
			err = fmt.Errorf("in attribute %q: %w", c, err)
			return false
		}
		return true
	})
	return err
}

// uniqueIn is uniqueKeys for the maps inside a value.
func uniqueIn(v pcommon.Value) error {
	switch v.Type() {
	case pcommon.ValueTypeMap:
		return uniqueKeys(v.Map())
	case pcommon.ValueTypeSlice:
		s := v.Slice()
		for i := range s.Len() {
			if err := uniqueIn(s.At(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// spanKeys is uniqueKeys for the attribute lists of a span that the
// receiver reads: the span's, its events' and its links'.
func spanKeys(sp ptrace.Span) error {
	if err := uniqueKeys(sp.Attributes()); err != nil {
		return err
	}
	es := sp.Events()
	for i := range es.Len() {
		if err := uniqueKeys(es.At(i).Attributes()); err != nil {
			return fmt.Errorf("span event %d (%q): %w", i, es.At(i).Name(), err)
		}
	}
	ls := sp.Links()
	for i := range ls.Len() {
		if err := uniqueKeys(ls.At(i).Attributes()); err != nil {
			return fmt.Errorf("span link %d: %w", i, err)
		}
	}
	return nil
}
