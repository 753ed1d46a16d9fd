package format

import (
	"cmp"
	"errors"
	"fmt"
	"math/big"
	"reflect"
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
// and item limits. EncodePayload and DecodePayload both call it, so a
// payload that is written can be read. Errors wrap ErrInvalidPayload.
func (p *Payload) Validate() error {
	if err := p.validate(); err != nil {
		return fmt.Errorf("format: %w: %w", ErrInvalidPayload, err)
	}
	return nil
}

func (p *Payload) validate() error {
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
		if err := checkFree(in.Args, 3); err != nil {
			return fmt.Errorf("intent: args%w", err)
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
		if err := cmp.Or(checkItems(len(c.Inputs)), checkItems(len(c.Parents))); err != nil {
			return fmt.Errorf("context: %w", err)
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
	if err := checkFree(p.Ext, 2); err != nil {
		return fmt.Errorf("ext%w", err)
	}
	return nil
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

// checkFree checks a free-form value (of intent.args or ext) whose maps and
// arrays would sit at nesting level (the payload map is level 1). It
// accepts what decodes back to the same bytes: nil, booleans, integers in
// CBOR's range, floats, text, byte strings, and arrays and text-keyed maps
// of them. Errors start with the value's path ("[\"key\"][2]: …").
func checkFree(v any, level int) error {
	switch x := v.(type) {
	case nil, bool, uint64, int64, float64, []byte:
		return nil
	case string:
		return freeText(x)
	case *big.Int:
		// Outside [-2^64, 2^64-1] the encoder writes a bignum tag.
		if x != nil && (x.Sign() >= 0 && x.BitLen() > 64 || x.Sign() < 0 && new(big.Int).Not(x).BitLen() > 64) {
			return fmt.Errorf(": integer %s is outside the CBOR integer range (a bignum tag)", x)
		}
		return nil
	case big.Int:
		return checkFree(&x, level)
	case map[string]any:
		if err := checkContainer(len(x), level); err != nil {
			return err
		}
		for k, e := range x {
			if err := cmp.Or(freeText(k), checkFree(e, level+1)); err != nil {
				return fmt.Errorf("[%q]%w", k, err)
			}
		}
		return nil
	case []any:
		if err := checkContainer(len(x), level); err != nil {
			return err
		}
		for i, e := range x {
			if err := checkFree(e, level+1); err != nil {
				return fmt.Errorf("[%d]%w", i, err)
			}
		}
		return nil
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
		return checkFree(rv.Elem().Interface(), level)
	case reflect.Slice, reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return nil // a byte string
		}
		if err := checkContainer(rv.Len(), level); err != nil {
			return err
		}
		for i := range rv.Len() {
			if err := checkFree(rv.Index(i).Interface(), level+1); err != nil {
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
			if err := cmp.Or(freeText(k), checkFree(it.Value().Interface(), level+1)); err != nil {
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
