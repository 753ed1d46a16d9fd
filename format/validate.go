package format

import (
	"cmp"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fxamacker/cbor/v2"
)

// ErrInvalidPayload is wrapped by every error of Payload.Validate: a payload
// that breaks a rule of docs/SPEC.md "Payload" is neither written nor read.
var ErrInvalidPayload = errors.New("invalid payload")

// Validate checks the rules of docs/SPEC.md "Payload" that the CBOR types
// alone do not express: known enumeration values, one kind per effect,
// 20-byte addresses, 32-byte slots and topics (at most four), a minimal
// intent.value of at most 32 bytes, required byte strings present, valid
// UTF-8 in every text string, free-form values (intent.args, ext) without
// tags or simple values other than false, true and null, and the nesting
// and item limits. EncodePayload (which checks free-form values as it
// encodes them, in the same walk: free) and DecodePayload both apply these
// rules, so a payload that is written can be read. Errors wrap
// ErrInvalidPayload.
func (p *Payload) Validate() error { return invalid(p.validate(true)) }

// invalid wraps a broken rule of docs/SPEC.md "Payload" (nil stays nil).
func invalid(err error) error {
	if err != nil {
		return fmt.Errorf("format: %w: %w", ErrInvalidPayload, err)
	}
	return nil
}

// validate checks the rules, those of free-form values only with
// freeForm.
func (p *Payload) validate(freeForm bool) error {
	if in := p.Intent; in != nil {
		switch {
		case len(in.Target) != 0 && len(in.Target) != 20:
			return fmt.Errorf("intent: target is %d bytes, want 20", len(in.Target))
		case len(in.Value) > 32:
			return fmt.Errorf("intent: value is %d bytes, want at most 32", len(in.Value))
		case len(in.Value) > 0 && in.Value[0] == 0:
			return errors.New("intent: value has a leading zero byte (big-endian without leading zeros; omit it for zero)")
		}
		if err := checkText(in.Tool); err != nil {
			return fmt.Errorf("intent: %w", err)
		}
		if freeForm {
			if _, err := freeArgs(nil, in.Args, false); err != nil {
				return err
			}
		}
	}
	if pe := p.Policy; pe != nil {
		if decisionNames.name(pe.Decision) == "" {
			return fmt.Errorf("policy: unknown decision %d", pe.Decision)
		}
		if err := cmp.Or(checkItems(len(pe.Reasons)), checkText(pe.PolicyID, pe.Rule), checkText(pe.Reasons...)); err != nil {
			return fmt.Errorf("policy: %w", err)
		}
	}
	if a := p.Approval; a != nil {
		if decisionNames.name(a.Decision) == "" {
			return fmt.Errorf("approval: unknown decision %d", a.Decision)
		}
		if err := checkText(a.Approver); err != nil {
			return fmt.Errorf("approval: %w", err)
		}
	}
	if x := p.Execution; x != nil {
		if statusNames.name(x.Status) == "" {
			return fmt.Errorf("execution: unknown status %d", x.Status)
		}
		if err := checkText(x.Error); err != nil {
			return fmt.Errorf("execution: %w", err)
		}
		if err := x.Output.validate(); err != nil {
			return fmt.Errorf("execution: output: %w", err)
		}
	}
	if err := checkItems(len(p.Effects)); err != nil {
		return fmt.Errorf("effects: %w", err)
	}
	for i := range p.Effects {
		if err := p.Effects[i].validate(); err != nil {
			return fmt.Errorf("effect %d: %w", i, err)
		}
	}
	if c := p.Context; c != nil {
		if err := cmp.Or(checkItems(len(c.Inputs)), checkItems(len(c.Parents)), checkItems(len(c.ParentIDs)), checkText(c.ParentIDs...)); err != nil {
			return fmt.Errorf("context: %w", err)
		}
		for i, id := range c.ParentIDs {
			if id == "" || len(id) > MaxIDLength {
				return fmt.Errorf("context: parent id %d is %d bytes, want 1 to %d", i, len(id), MaxIDLength)
			}
		}
		for i, in := range c.Inputs {
			if in.Digest == nil {
				return fmt.Errorf("context: input %d: digest is required", i)
			}
			if err := checkText(in.Source); err != nil {
				return fmt.Errorf("context: input %d: %w", i, err)
			}
		}
	}
	if c := p.Code; c != nil {
		if err := checkText(c.AgentVersion, c.ModelID, c.ToolVersion); err != nil {
			return fmt.Errorf("code: %w", err)
		}
	}
	if d := p.Delegation; d != nil {
		if err := cmp.Or(checkItems(len(d.Scope)), checkText(d.Delegator, d.Delegate), checkText(d.Scope...)); err != nil {
			return fmt.Errorf("delegation: %w", err)
		}
	}
	if err := p.Content.validate(); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	if freeForm {
		if _, err := freeExt(nil, p.Ext, false); err != nil {
			return err
		}
	}
	return nil
}

// validate checks the rules of a text map (nil is absent).
func (t *Text) validate() error {
	switch {
	case t == nil:
		return nil
	case len(t.Text) > MaxText:
		return fmt.Errorf("text is %d bytes, limit %d (keep its digest and size instead: format.NewText)", len(t.Text), MaxText)
	case t.Text != "" && len(t.Digest) != 0:
		return errors.New("both text and digest are set (a kept text has no digest)")
	case t.Text != "" && t.Size != uint64(len(t.Text)):
		return fmt.Errorf("size is %d, the text is %d bytes", t.Size, len(t.Text))
	case t.Text == "" && len(t.Digest) != 0 && len(t.Digest) != 32:
		return fmt.Errorf("digest is %d bytes, want 32 (SHA-256)", len(t.Digest))
	case t.Text == "" && len(t.Digest) == 0 && t.Size != 0:
		return fmt.Errorf("size is %d but neither text nor digest is set", t.Size)
	}
	return checkText(t.Text)
}

// CheckVersion reports the first kind or field of ev that a log of format
// version v cannot hold, naming it by its event JSON path: a writer
// appends to a log in the log's version (docs/SPEC.md, "Format versions").
// Errors wrap ErrNewerVersion.
func (ev *Event) CheckVersion(v uint8) error {
	if v >= versionFields {
		return nil
	}
	var field string
	switch {
	case ev.Kind.Since() > v:
		field = "kind " + ev.Kind.String()
	case ev.EventTime != 0:
		field = "event_time"
	case ev.Run != "":
		field = "run"
	case ev.ID != "":
		field = "id"
	case ev.Payload.newerField() != "":
		field = "payload." + ev.Payload.newerField()
	default:
		return nil
	}
	return fmt.Errorf("format: %s is of format version %d, and the log is of version %d (record it in a new log): %w", field, versionFields, v, ErrNewerVersion)
}

// CheckVersion reports a field of a later format version than v: the
// payload of a record of version v has only the fields of version v
// (docs/SPEC.md, "Format versions"). Errors wrap ErrInvalidPayload.
func (p *Payload) CheckVersion(v uint8) error {
	field := p.newerField()
	if v >= versionFields || field == "" {
		return nil
	}
	return invalid(fmt.Errorf("%s is a field of format version %d, in the payload of a record of version %d", field, versionFields, v))
}

// freeArgs and freeExt are free for intent.args (level 3) and ext (level
// 2), with the field in their errors.
func freeArgs(dst []byte, args map[string]any, enc bool) ([]byte, error) {
	dst, err := free(dst, args, 3, enc)
	if err != nil {
		return dst, fmt.Errorf("intent: args%w", err)
	}
	return dst, nil
}

func freeExt(dst []byte, ext map[string]any, enc bool) ([]byte, error) {
	dst, err := free(dst, ext, 2, enc)
	if err != nil {
		return dst, fmt.Errorf("ext%w", err)
	}
	return dst, nil
}

func (e *Effect) validate() error {
	n := 0
	for _, set := range []bool{e.FileWrite != nil, e.APICall != nil, e.DBChange != nil, e.ChainState != nil, e.ChainLog != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("%d kinds set, want exactly 1", n)
	}
	switch {
	case e.FileWrite != nil:
		return checkText(e.FileWrite.Path)
	case e.APICall != nil:
		return checkText(e.APICall.Method, e.APICall.URL)
	case e.DBChange != nil:
		return checkText(e.DBChange.Database, e.DBChange.Table, e.DBChange.Operation)
	case e.ChainState != nil:
		if s := e.ChainState; len(s.Address) != 20 {
			return fmt.Errorf("chain_state: address is %d bytes, want 20", len(s.Address))
		} else if len(s.Slot) != 0 && len(s.Slot) != 32 {
			return fmt.Errorf("chain_state: slot is %d bytes, want 32", len(s.Slot))
		}
	default:
		l := e.ChainLog
		if len(l.Address) != 20 {
			return fmt.Errorf("chain_log: address is %d bytes, want 20", len(l.Address))
		}
		if len(l.Topics) > 4 {
			return fmt.Errorf("chain_log: %d topics, want at most 4", len(l.Topics))
		}
		for i, t := range l.Topics {
			if len(t) != 32 {
				return fmt.Errorf("chain_log: topic %d is %d bytes, want 32", i, len(t))
			}
		}
	}
	return nil
}

// checkText reports the first string that is not valid UTF-8: the encoder
// would write it, and every decoder rejects it.
func checkText(ss ...string) error {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return fmt.Errorf("text %q is not valid UTF-8", s)
		}
	}
	return nil
}

// checkItems checks an array or map length against the item limit.
func checkItems(n int) error {
	if n > maxItems {
		return fmt.Errorf("%d items, limit %d", n, maxItems)
	}
	return nil
}

var cborMarshaler = reflect.TypeFor[cbor.Marshaler]()

// free checks a free-form value (of intent.args or ext) whose maps and
// arrays would sit at nesting level (the payload map is level 1) and, with
// enc, appends its canonical encoding to dst: the write path checks and
// encodes every event's free-form values in one walk. It accepts what
// decodes back to the same bytes: nil, booleans, integers in CBOR's range,
// floats, text, byte strings, and arrays and text-keyed maps of them.
// Errors start with the value's path ("[\"key\"][2]: …"). The values
// ParseEventJSON and most callers make (nil, bool, string, uint64, int64,
// int, []byte, []any, map[string]any) are encoded here, any other by the
// reflective encoder (a CBOR item's encoding does not depend on where it
// sits); FuzzPayloadEncoders compares the two.
func free(dst []byte, v any, level int, enc bool) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return appendIf(enc, dst, 0xf6), nil
	case bool:
		if !enc {
			return dst, nil
		}
		if x {
			return append(dst, 0xf5), nil
		}
		return append(dst, 0xf4), nil
	case string:
		if err := freeText(x); err != nil || !enc {
			return dst, err
		}
		return appendText(dst, x), nil
	case uint64:
		if !enc {
			return dst, nil
		}
		return appendHead(dst, 0, x), nil
	case int64:
		if !enc {
			return dst, nil
		}
		return appendInt(dst, x), nil
	case int:
		if !enc {
			return dst, nil
		}
		return appendInt(dst, int64(x)), nil
	case []byte:
		if !enc {
			return dst, nil
		}
		return appendReqBytes(dst, x), nil
	case []any:
		if err := checkContainer(len(x), level); err != nil {
			return dst, err
		}
		if enc {
			if x == nil {
				return append(dst, 0xf6), nil
			}
			dst = appendHead(dst, 4, uint64(len(x)))
		}
		var err error
		for i, e := range x {
			if dst, err = free(dst, e, level+1, enc); err != nil {
				return dst, fmt.Errorf("[%d]%w", i, err)
			}
		}
		return dst, nil
	case map[string]any:
		if err := checkContainer(len(x), level); err != nil {
			return dst, err
		}
		return freeMap(dst, x, level, enc)
	}
	if err := checkOtherFree(v, level); err != nil || !enc {
		return dst, err
	}
	b, err := encMode.Marshal(v)
	return append(dst, b...), err
}

// freeMap is free for a text-keyed map, encoded with its keys in the order
// of their encodings (RFC 8949 §4.2.1): a text string's head grows with its
// length, so shorter keys first, then bytewise.
func freeMap(dst []byte, m map[string]any, level int, enc bool) ([]byte, error) {
	if enc && m == nil {
		return append(dst, 0xf6), nil
	}
	type entry struct {
		k string
		v any
	}
	var small [8]entry
	entries := small[:0]
	for k, v := range m {
		entries = append(entries, entry{k, v})
	}
	if enc {
		before := func(a, b string) bool { return len(a) < len(b) || len(a) == len(b) && a < b }
		if len(entries) <= len(small) {
			for i := 1; i < len(entries); i++ { // insertion sort: a few keys
				for j := i; j > 0 && before(entries[j].k, entries[j-1].k); j-- {
					entries[j], entries[j-1] = entries[j-1], entries[j]
				}
			}
		} else {
			slices.SortFunc(entries, func(a, b entry) int {
				return cmp.Or(cmp.Compare(len(a.k), len(b.k)), strings.Compare(a.k, b.k))
			})
		}
		dst = appendHead(dst, 5, uint64(len(entries)))
	}
	var err error
	for _, e := range entries {
		if err = freeText(e.k); err == nil {
			if enc {
				dst = appendText(dst, e.k)
			}
			dst, err = free(dst, e.v, level+1, enc)
		}
		if err != nil {
			return dst, fmt.Errorf("[%q]%w", e.k, err)
		}
	}
	return dst, nil
}

func appendIf(enc bool, dst []byte, b byte) []byte {
	if enc {
		return append(dst, b)
	}
	return dst
}

// checkOtherFree is free's check of the values it leaves to the reflective
// encoder.
func checkOtherFree(v any, level int) error {
	switch x := v.(type) {
	case float64:
		return nil
	case *big.Int:
		// Outside [-2^64, 2^64-1] the encoder writes a bignum tag.
		if x != nil && (x.Sign() >= 0 && x.BitLen() > 64 || x.Sign() < 0 && new(big.Int).Not(x).BitLen() > 64) {
			return fmt.Errorf(": integer %s is outside the CBOR integer range (a bignum tag)", x)
		}
		return nil
	case big.Int:
		return checkOtherFree(&x, level)
	}
	rv := reflect.ValueOf(v)
	if rv.Type().Implements(cborMarshaler) {
		return fmt.Errorf(": a %T may encode as a tag or a simple value", v)
	}
	switch rv.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return nil
	case reflect.String:
		return freeText(rv.String())
	case reflect.Pointer:
		if rv.IsNil() {
			return nil
		}
		_, err := free(nil, rv.Elem().Interface(), level, false)
		return err
	case reflect.Slice, reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return nil // a byte string
		}
		if err := checkContainer(rv.Len(), level); err != nil {
			return err
		}
		for i := range rv.Len() {
			if _, err := free(nil, rv.Index(i).Interface(), level+1, false); err != nil {
				return fmt.Errorf("[%d]%w", i, err)
			}
		}
		return nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return fmt.Errorf(": a %T: map keys must be text", v)
		}
		if err := checkContainer(rv.Len(), level); err != nil {
			return err
		}
		for it := rv.MapRange(); it.Next(); {
			k := it.Key().String()
			if err := freeText(k); err != nil {
				return fmt.Errorf("[%q]%w", k, err)
			}
			if _, err := free(nil, it.Value().Interface(), level+1, false); err != nil {
				return fmt.Errorf("[%q]%w", k, err)
			}
		}
		return nil
	}
	return fmt.Errorf(": a %T is not a free-form value (use nil, booleans, numbers, text, byte strings, []any and map[string]any)", v)
}

// freeText is checkText for a free-form value or key.
func freeText(s string) error {
	if err := checkText(s); err != nil {
		return fmt.Errorf(": %w", err)
	}
	return nil
}

// checkContainer checks an array or map of n items at nesting level.
func checkContainer(n, level int) error {
	if level > maxNesting {
		return fmt.Errorf(": nested %d levels deep, limit %d", level, maxNesting)
	}
	if n > maxItems {
		return fmt.Errorf(": %d items, limit %d", n, maxItems)
	}
	return nil
}

// newerField names the first field of p of format version 3, "" if none.
func (p *Payload) newerField() string {
	switch {
	case p.Content != nil:
		return "content"
	case p.Execution != nil && p.Execution.Output != nil:
		return "execution.output"
	case p.Context != nil && len(p.Context.ParentIDs) > 0:
		return "context.parent_ids"
	}
	return ""
}
