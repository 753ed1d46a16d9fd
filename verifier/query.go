package verifier

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentflightrecorder/afr/format"
)

// Op compares a payload field with a value.
type Op uint8

// Field comparisons. OpEq compares the field's text exactly; OpNe is
// numeric when both sides are numbers and textual otherwise; OpLt … OpGe
// need numbers on both sides (a field that is not a number does not match).
const (
	OpEq       Op = iota // =
	OpContains           // ~ (substring)
	OpNe                 // !=
	OpLt                 // <
	OpLe                 // <=
	OpGt                 // >
	OpGe                 // >=
)

// ops lists each operator's spelling, longest first where one is a prefix
// of another.
var ops = []struct {
	s  string
	op Op
}{{"!=", OpNe}, {"<=", OpLe}, {">=", OpGe}, {"=", OpEq}, {"~", OpContains}, {"<", OpLt}, {">", OpGt}}

func (o Op) String() string {
	for _, x := range ops {
		if x.op == o {
			return x.s
		}
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// FieldMatch matches a payload field, named by its JSON path (for example
// "intent.args.cmd" or "effects.0.file_write.path"), against a value. A
// path part * stands for every element of a list (or value of a map):
// "effects.*.file_write.path" matches when any effect's path does. A field
// the event does not have matches no condition, != included.
type FieldMatch struct {
	Path  string
	Op    Op
	Value string
}

func (f FieldMatch) String() string { return f.Path + f.Op.String() + f.Value }

// ParseFieldMatch parses "path OP value" with OP one of = (exact text), ~
// (substring), != (differs), and <, <=, >, >= (numbers). The path is
// checked against the payload's fields (format.CheckPayloadPath): an
// unknown field is an error naming it and the fields known there, not a
// condition that silently matches nothing.
func ParseFieldMatch(s string) (FieldMatch, error) {
	i := strings.IndexAny(s, "=~!<>")
	if i <= 0 {
		return FieldMatch{}, fmt.Errorf("condition %q: want PATH=VALUE, PATH~TEXT, PATH!=VALUE or PATH<NUMBER (also <=, >, >=)", s)
	}
	f := FieldMatch{Path: s[:i]}
	found := false
	for _, x := range ops {
		if !found && strings.HasPrefix(s[i:], x.s) {
			f.Op, f.Value, found = x.op, s[i+len(x.s):], true
		}
	}
	if !found { // "!" not followed by "="
		return FieldMatch{}, fmt.Errorf("condition %q: %q is not an operator (want =, ~, !=, <, <=, >, >=)", s, s[i:i+1])
	}
	if err := format.CheckPayloadPath(f.Path); err != nil {
		return FieldMatch{}, fmt.Errorf("condition %q: %w", s, err)
	}
	if f.Op >= OpLt {
		if _, ok := number(f.Value); !ok {
			return FieldMatch{}, fmt.Errorf("condition %q: %s compares numbers, and %q is not one", s, f.Op, f.Value)
		}
	}
	return f, nil
}

// jsonNumber is a JSON number (exponents of at most four digits: payload
// numbers are at most float64's 1e308).
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]{1,4})?$`)

// number reads a JSON number exactly.
func number(s string) (*big.Rat, bool) {
	if !jsonNumber.MatchString(s) {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// holds reports whether a field value satisfies f.
func (f *FieldMatch) holds(v any) bool {
	text := fmt.Sprint(v)
	switch f.Op {
	case OpEq:
		return text == f.Value
	case OpContains:
		return strings.Contains(text, f.Value)
	}
	n, isNum := v.(json.Number)
	var a, b *big.Rat
	if isNum {
		a, _ = number(string(n))
		b, _ = number(f.Value)
	}
	if a == nil || b == nil {
		return f.Op == OpNe && text != f.Value
	}
	c := a.Cmp(b)
	switch f.Op {
	case OpNe:
		return c != 0
	case OpLt:
		return c < 0
	case OpLe:
		return c <= 0
	case OpGt:
		return c > 0
	}
	return c >= 0
}

// matches reports whether any value at f's path in ev satisfies f.
func (f *FieldMatch) matches(ev *Event) bool {
	for _, v := range lookup(ev.fields, strings.Split(f.Path, ".")) {
		if f.holds(v) {
			return true
		}
	}
	return false
}

// SeqRange is an inclusive range of sequence numbers.
type SeqRange struct{ From, To uint64 }

// ParseSeqRange parses "N", "A..B" (both included), "A.." (from A on) or
// "..B" (up to B).
func ParseSeqRange(s string) (SeqRange, error) {
	a, b, isRange := strings.Cut(s, "..")
	if !isRange {
		b = a
	}
	r := SeqRange{To: math.MaxUint64}
	var err error
	if a != "" {
		if r.From, err = strconv.ParseUint(a, 10, 64); err != nil {
			return r, fmt.Errorf("sequence range %q: %q is not a sequence number (want N, A..B, A.. or ..B)", s, a)
		}
	}
	if b != "" {
		if r.To, err = strconv.ParseUint(b, 10, 64); err != nil {
			return r, fmt.Errorf("sequence range %q: %q is not a sequence number (want N, A..B, A.. or ..B)", s, b)
		}
	}
	if a == "" && b == "" || r.From > r.To {
		return r, fmt.Errorf("sequence range %q is empty (want N, A..B with A ≤ B, A.. or ..B)", s)
	}
	return r, nil
}

// Query selects events; zero fields match everything. All given conditions
// must hold, and at least one of Any when it is given.
type Query struct {
	Tool  string      // envelope tool name
	Kind  format.Kind // envelope kind
	Group string      // concurrency group
	Seq   *SeqRange   // sequence numbers in the range
	Run   string      // envelope run tag
	Since time.Time   // time ≥ Since
	Until time.Time   // time < Until
	// ByEventTime makes Since and Until apply to the caller's event_time
	// instead of the recorder's time; events without one do not match.
	ByEventTime bool
	Approver    string          // payload approval.approver
	Decision    format.Decision // payload policy.decision
	Fields      []FieldMatch    // every one holds
	Any         []FieldMatch    // at least one holds (when given)
}

// Find returns the matching events in sequence order.
func (ix *Index) Find(q Query) []*Event {
	var out []*Event
	for _, ev := range ix.events {
		if q.Match(ev) {
			out = append(out, ev)
		}
	}
	return out
}

// Match reports whether ev satisfies every condition of q.
func (q *Query) Match(ev *Event) bool {
	e := &ev.Envelope
	p := ev.Payload
	t := e.Time
	if q.ByEventTime {
		t = e.EventTime
	}
	timed := !q.Since.IsZero() || !q.Until.IsZero()
	switch {
	case q.Tool != "" && e.Tool != q.Tool,
		q.Kind != 0 && e.Kind != q.Kind,
		q.Group != "" && e.Group != q.Group,
		q.Run != "" && e.Run != q.Run,
		q.Seq != nil && (ev.Seq < q.Seq.From || ev.Seq > q.Seq.To),
		timed && q.ByEventTime && e.EventTime == 0,
		!q.Since.IsZero() && time.Unix(0, t).Before(q.Since), // not UnixNano: out of range past 2262
		!q.Until.IsZero() && !time.Unix(0, t).Before(q.Until):
		return false
	case q.Approver != "" && (p == nil || p.Approval == nil || p.Approval.Approver != q.Approver),
		q.Decision != 0 && (p == nil || p.Policy == nil || p.Policy.Decision != q.Decision):
		return false
	}
	for i := range q.Fields {
		if !q.Fields[i].matches(ev) {
			return false
		}
	}
	for i := range q.Any {
		if q.Any[i].matches(ev) {
			return true
		}
	}
	return len(q.Any) == 0
}

// lookup returns the values at a path: one, none (the field is absent) or
// several (a * part). A map key that itself holds dots (ext's
// "chain.gas_used") is found when no shorter key is.
func lookup(cur any, path []string) []any {
	if len(path) == 0 {
		return []any{cur}
	}
	part, rest := path[0], path[1:]
	switch c := cur.(type) {
	case map[string]any:
		if part == "*" {
			var out []any
			for _, k := range slices.Sorted(maps.Keys(c)) {
				out = append(out, lookup(c[k], rest)...)
			}
			return out
		}
		for n := 1; n <= len(path); n++ {
			if v, ok := c[strings.Join(path[:n], ".")]; ok {
				return lookup(v, path[n:])
			}
		}
	case []any:
		if part == "*" {
			var out []any
			for _, v := range c {
				out = append(out, lookup(v, rest)...)
			}
			return out
		}
		if i, err := strconv.Atoi(part); err == nil && i >= 0 && i < len(c) {
			return lookup(c[i], rest)
		}
	}
	return nil
}

// Hit is an event of an answer: a match, or context around one.
type Hit struct {
	*Event
	Context bool `json:"context,omitempty"` // shown for context (--before/--after), not a match
}

// Around returns matches (in sequence order) with up to before events
// preceding and after events following each, as grep -B/-A does: every
// event once, in sequence order, context marked. Neighbours are the
// index's events: in a bundle, the disclosed ones.
func (ix *Index) Around(matches []*Event, before, after int) []Hit {
	show := map[int]bool{}
	match := map[int]bool{}
	for _, ev := range matches {
		i, ok := slices.BinarySearchFunc(ix.events, ev.Seq, func(e *Event, s uint64) int { return cmp.Compare(e.Seq, s) })
		if !ok {
			continue
		}
		match[i] = true
		for j := max(0, i-before); j <= min(len(ix.events)-1, i+after); j++ {
			show[j] = true
		}
	}
	out := make([]Hit, 0, len(show))
	for _, i := range slices.Sorted(maps.Keys(show)) {
		out = append(out, Hit{ix.events[i], !match[i]})
	}
	return out
}
