package pdr

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// Policy is a named set of rules evaluated against an intent. Evaluation is deny-overrides:
// any matching Deny rule denies; otherwise any matching Allow rule allows; otherwise the intent
// is denied because no rule allows it. Approval is required when any matching Allow rule asks
// for it.
type Policy struct {
	Name  string `json:"name" cbor:"1,keyasint"`
	Rules []Rule `json:"rules" cbor:"2,keyasint"`
}

// Rule matches intents by target, method, value and decoded arguments.
type Rule struct {
	Name string `json:"name" cbor:"1,keyasint"`
	// Effect is format.DecisionAllow or format.DecisionDeny; it encodes as the text "allow" or
	// "deny", and a rule decoded without one is refused (there is no default effect).
	Effect format.Decision `json:"effect" cbor:"2,keyasint"`
	// Targets the rule applies to; empty means any.
	Targets []common.Address `json:"targets,omitempty" cbor:"3,keyasint,omitempty"`
	// Method is a Solidity signature such as "transfer(address,uint256)" (elementary types
	// only); the call's selector must be its selector and its arguments decode by it. Empty
	// means any calldata.
	Method string `json:"method,omitempty" cbor:"4,keyasint,omitempty"`
	// MaxValue caps the wei sent, as a decimal string; empty means no cap.
	MaxValue string `json:"max_value,omitempty" cbor:"5,keyasint,omitempty"`
	// Args must all hold on the decoded arguments (requires Method).
	Args []Condition `json:"args,omitempty" cbor:"6,keyasint,omitempty"`
	// RequireApproval always requires human approval when the rule allows.
	RequireApproval bool `json:"require_approval,omitempty" cbor:"7,keyasint,omitempty"`
	// ApprovalAbove requires approval when the value exceeds it (decimal wei).
	ApprovalAbove string `json:"approval_above,omitempty" cbor:"8,keyasint,omitempty"`
	// ApprovalIf requires approval when all of these hold.
	ApprovalIf []Condition `json:"approval_if,omitempty" cbor:"9,keyasint,omitempty"`
}

// Condition compares decoded argument Arg (0-based) with Value using Op: "eq", "ne", "lt",
// "le", "gt", "ge" (integers; eq/ne also addresses, bools, bytes) or "in" (Value is a
// comma-separated list). Integers are decimal, addresses and bytes 0x-hex, bools true/false.
type Condition struct {
	Arg   int    `json:"arg" cbor:"1,keyasint"`
	Op    string `json:"op" cbor:"2,keyasint"`
	Value string `json:"value" cbor:"3,keyasint"`
}

// Request is a proposed on-chain call, as the agent asked the policy to decide it.
type Request struct {
	Domain
	Call
	// EventID is the recorder event id of the intent; it is bound into the PDR.
	EventID common.Hash
}

// Reason explains one rule's part in a decision.
type Reason struct {
	Rule    string `json:"rule" cbor:"1,keyasint"`
	Matched bool   `json:"matched" cbor:"2,keyasint"`
	Detail  string `json:"detail" cbor:"3,keyasint"`
}

// Evaluation is a policy's answer for one intent. Its CBOR (MarshalCBOR) has integer keys 1–4
// in field order, the decision as the text "allow" or "deny".
type Evaluation struct {
	PolicyID common.Hash `json:"policy_id"`
	// Decision is format.DecisionAllow or format.DecisionDeny; an allow that needs approval is
	// Allow with ApprovalRequired (the log records it as format.DecisionAsk).
	Decision         format.Decision `json:"decision"`
	ApprovalRequired bool            `json:"approval_required"`
	Reasons          []Reason        `json:"reasons"`
}

type evaluationCBOR struct {
	PolicyID         common.Hash  `cbor:"1,keyasint"`
	Decision         decisionText `cbor:"2,keyasint"`
	ApprovalRequired bool         `cbor:"3,keyasint"`
	Reasons          []Reason     `cbor:"4,keyasint"`
}

// MarshalCBOR implements cbor.Marshaler; a decision other than allow or deny is refused.
func (e Evaluation) MarshalCBOR() ([]byte, error) {
	return format.Marshal(evaluationCBOR{e.PolicyID, decisionText(e.Decision), e.ApprovalRequired, e.Reasons})
}

// UnmarshalCBOR implements cbor.Unmarshaler.
func (e *Evaluation) UnmarshalCBOR(data []byte) error {
	var w evaluationCBOR
	if err := cborDecoder.Unmarshal(data, &w); err != nil {
		return err
	}
	*e = Evaluation{w.PolicyID, format.Decision(w.Decision), w.ApprovalRequired, w.Reasons}
	return nil
}

// Allowed reports whether the decision is allow.
func (e *Evaluation) Allowed() bool { return e.Decision == format.DecisionAllow }

// ID returns keccak256 of the policy's deterministic CBOR encoding: the policy id bound in PDRs.
func (p *Policy) ID() (common.Hash, error) {
	enc, err := format.Marshal(p)
	if err != nil {
		return common.Hash{}, err
	}
	return crypto.Keccak256Hash(enc), nil
}

// Validate checks that every rule is well formed (effects, methods, numbers, conditions).
func (p *Policy) Validate() error {
	for i := range p.Rules {
		if err := p.Rules[i].validate(); err != nil {
			return fmt.Errorf("pdr: policy %q rule %d (%s): %w", p.Name, i, p.Rules[i].Name, err)
		}
	}
	return nil
}

// Evaluate decides intent in with the policy's rules. It fails only on a malformed policy or
// a call value that is not a uint256 (ErrValueRange: a negative value would pass every cap).
func (p *Policy) Evaluate(in Request) (Evaluation, error) {
	if err := p.Validate(); err != nil {
		return Evaluation{}, err
	}
	if err := in.Call.Validate(); err != nil {
		return Evaluation{}, err
	}
	id, err := p.ID()
	if err != nil {
		return Evaluation{}, err
	}
	ev := Evaluation{PolicyID: id, Decision: format.DecisionDeny}
	allowed, denied := false, false
	for i := range p.Rules {
		r := &p.Rules[i]
		ok, detail := r.matches(in.Call)
		ev.Reasons = append(ev.Reasons, Reason{Rule: r.Name, Matched: ok, Detail: detail})
		if !ok {
			continue
		}
		if r.Effect == format.DecisionDeny {
			denied = true
			continue
		}
		allowed = true
		if need, why := r.needsApproval(in.Call); need {
			ev.ApprovalRequired = true
			ev.Reasons = append(ev.Reasons, Reason{Rule: r.Name, Matched: true, Detail: "approval required: " + why})
		}
	}
	switch {
	case denied:
		ev.ApprovalRequired = false
		ev.Reasons = append(ev.Reasons, Reason{Detail: "denied: a deny rule matched"})
	case allowed:
		ev.Decision = format.DecisionAllow
	default:
		ev.Reasons = append(ev.Reasons, Reason{Detail: "denied: no rule allows this call"})
	}
	return ev, nil
}

// Decide evaluates in, builds the PDR (nonce and expiry as given) and signs it with the policy
// signer's key. Denials are signed too: they are evidence for the recorder, and the account
// refuses them (DecisionNotAllow).
func (p *Policy) Decide(in Request, nonce, expiry uint64, key *ecdsa.PrivateKey) (SignedPDR, Evaluation, error) {
	ev, err := p.Evaluate(in)
	if err != nil {
		return SignedPDR{}, Evaluation{}, err
	}
	rec := ForCall(in.Domain, in.Call, Terms{
		Nonce: nonce, PolicyID: ev.PolicyID, Decision: ev.Decision, ApprovalRequired: ev.ApprovalRequired, Expiry: expiry, EventID: in.EventID,
	})
	s, err := SignPDR(key, rec)
	return s, ev, err
}

// ruleEffect is a Rule as it is encoded in CBOR and decoded: its effect as the text "allow" or
// "deny" (policy ids hash it), a pointer so that a missing effect is seen — a rule must never
// deny (or allow) by omission.
type ruleEffect struct {
	rule
	Effect *decisionText `json:"effect" cbor:"2,keyasint"`
}

// rule is Rule without its methods, for decoding.
type rule Rule

func (w *ruleEffect) done(r *Rule) error {
	if w.Effect == nil {
		return fmt.Errorf("pdr: rule %q has no effect, want allow or deny", w.Name)
	}
	dec := Rule(w.rule)
	dec.Effect = format.Decision(*w.Effect)
	if err := dec.validate(); err != nil {
		return fmt.Errorf("pdr: rule %q: %w", w.Name, err)
	}
	*r = dec
	return nil
}

// UnmarshalJSON implements json.Unmarshaler; it refuses a rule without an effect and one that
// Validate would refuse (wei amounts and integer conditions out of range among others).
func (r *Rule) UnmarshalJSON(data []byte) error {
	var w ruleEffect
	if err := strictjson.UnmarshalKnown(data, &w); err != nil {
		return err
	}
	return w.done(r)
}

// UnmarshalCBOR implements cbor.Unmarshaler; it refuses what UnmarshalJSON refuses.
func (r *Rule) UnmarshalCBOR(data []byte) error {
	var w ruleEffect
	if err := cborDecoder.Unmarshal(data, &w); err != nil {
		return err
	}
	return w.done(r)
}

// MarshalCBOR implements cbor.Marshaler (integer keys 1–9 in field order, the effect as text);
// an effect other than allow or deny is refused.
func (r Rule) MarshalCBOR() ([]byte, error) {
	effect := decisionText(r.Effect)
	return format.Marshal(ruleEffect{rule(r), &effect})
}

// ---- rule matching ----

func (r *Rule) validate() error {
	if r.Effect != format.DecisionAllow && r.Effect != format.DecisionDeny {
		return fmt.Errorf("effect %s, want allow or deny", r.Effect)
	}
	for _, s := range []string{r.MaxValue, r.ApprovalAbove} {
		if _, err := parseWei(s); err != nil {
			return err
		}
	}
	var args abi.Arguments
	if r.Method != "" {
		var err error
		if _, args, err = parseMethod(r.Method); err != nil {
			return err
		}
	}
	for _, c := range append(append([]Condition{}, r.Args...), r.ApprovalIf...) {
		if r.Method == "" {
			return errors.New("argument conditions need a method")
		}
		if c.Arg < 0 || c.Arg >= len(args) {
			return fmt.Errorf("condition on argument %d, method has %d", c.Arg, len(args))
		}
		if _, err := c.holds(args[c.Arg].Type, zeroOf(args[c.Arg].Type)); err != nil && !errors.Is(err, errNoMatch) {
			return err
		}
	}
	return nil
}

var errNoMatch = errors.New("no match")

// matches reports whether the call is within the rule, and why (not).
func (r *Rule) matches(c Call) (bool, string) {
	if len(r.Targets) > 0 {
		found := false
		for _, t := range r.Targets {
			found = found || t == c.Target
		}
		if !found {
			return false, "target " + c.Target.Hex() + " not listed"
		}
	}
	if max, _ := parseWei(r.MaxValue); max != nil && value(c.Value).Cmp(max) > 0 {
		return false, "value " + value(c.Value).String() + " over cap " + max.String()
	}
	if r.Method == "" {
		return true, "target and value within rule"
	}
	vals, why := decodeFor(r.Method, c.Data)
	if vals == nil {
		return false, why
	}
	_, args, _ := parseMethod(r.Method)
	for _, cond := range r.Args {
		if ok, err := cond.holds(args[cond.Arg].Type, vals[cond.Arg]); !ok {
			return false, fmt.Sprintf("argument %d: %v", cond.Arg, err)
		}
	}
	return true, "call " + r.Method + " within rule"
}

func (r *Rule) needsApproval(c Call) (bool, string) {
	if r.RequireApproval {
		return true, "rule always requires approval"
	}
	if above, _ := parseWei(r.ApprovalAbove); above != nil && value(c.Value).Cmp(above) > 0 {
		return true, "value over " + above.String()
	}
	if len(r.ApprovalIf) > 0 {
		vals, _ := decodeFor(r.Method, c.Data)
		_, args, _ := parseMethod(r.Method)
		for _, cond := range r.ApprovalIf {
			if ok, _ := cond.holds(args[cond.Arg].Type, vals[cond.Arg]); !ok {
				return false, ""
			}
		}
		return true, "approval conditions hold"
	}
	return false, ""
}

// decodeFor decodes data as a call of method; nil and a reason when it is not one.
func decodeFor(method string, data []byte) ([]any, string) {
	sel, args, err := parseMethod(method)
	if err != nil {
		return nil, err.Error()
	}
	if len(data) < 4 || [4]byte(data[:4]) != sel {
		return nil, "selector is not " + method
	}
	vals, err := args.UnpackValues(data[4:])
	if err != nil {
		return nil, "calldata does not decode as " + method
	}
	return vals, ""
}

// parseMethod parses "name(type,...)" with elementary types into its selector and arguments.
func parseMethod(m string) ([4]byte, abi.Arguments, error) {
	open := strings.IndexByte(m, '(')
	if open <= 0 || !strings.HasSuffix(m, ")") {
		return [4]byte{}, nil, fmt.Errorf("method %q, want name(type,...)", m)
	}
	var args abi.Arguments
	if inner := m[open+1 : len(m)-1]; inner != "" {
		for _, ts := range strings.Split(inner, ",") {
			t, err := abi.NewType(ts, "", nil)
			if err != nil || t.T == abi.TupleTy {
				return [4]byte{}, nil, fmt.Errorf("method %q: unsupported type %q", m, ts)
			}
			args = append(args, abi.Argument{Type: t})
		}
	}
	return [4]byte(crypto.Keccak256([]byte(m))[:4]), args, nil
}

func parseWei(s string) (*big.Int, error) {
	if s == "" {
		return nil, nil
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, fmt.Errorf("wei amount %q, want a non-negative decimal", s)
	}
	if !inUint256(v) {
		return nil, fmt.Errorf("%w: wei amount %s", ErrValueRange, describe(v))
	}
	return v, nil
}

func zeroOf(t abi.Type) any {
	switch t.T {
	case abi.IntTy, abi.UintTy:
		return new(big.Int)
	case abi.AddressTy:
		return common.Address{}
	case abi.BoolTy:
		return false
	}
	return []byte{}
}

// holds evaluates the condition on decoded value v of type t. It returns errNoMatch (wrapped
// with the values) when the comparison is false and another error when it cannot be made.
func (c Condition) holds(t abi.Type, v any) (bool, error) {
	var wants []string
	if c.Op == "in" {
		wants = strings.Split(c.Value, ",")
	} else {
		wants = []string{c.Value}
	}
	got, err := canonical(t, v)
	if err != nil {
		return false, err
	}
	for _, w := range wants {
		want, err := parseArg(t, strings.TrimSpace(w))
		if err != nil {
			return false, err
		}
		ok, err := compare(c.Op, got, want)
		if err != nil {
			return false, err
		}
		if ok {
			return true, nil
		}
	}
	return false, fmt.Errorf("%w: %v %s %s", errNoMatch, got, c.Op, c.Value)
}

// canonical maps decoded values to *big.Int (integers) or string (everything else).
func canonical(t abi.Type, v any) (any, error) {
	switch t.T {
	case abi.IntTy, abi.UintTy:
		switch n := v.(type) {
		case *big.Int:
			return n, nil
		case uint8, uint16, uint32, uint64, int8, int16, int32, int64:
			b, _ := new(big.Int).SetString(fmt.Sprint(n), 10)
			return b, nil
		}
	case abi.AddressTy:
		if a, ok := v.(common.Address); ok {
			return strings.ToLower(a.Hex()), nil
		}
	case abi.BoolTy:
		if b, ok := v.(bool); ok {
			return fmt.Sprint(b), nil
		}
	case abi.BytesTy, abi.FixedBytesTy, abi.StringTy:
		return strings.ToLower(fmt.Sprintf("%#x", v)), nil
	}
	return nil, fmt.Errorf("cannot compare a %s argument", t)
}

func parseArg(t abi.Type, s string) (any, error) {
	switch t.T {
	case abi.IntTy, abi.UintTy:
		v, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return nil, fmt.Errorf("%q is not a decimal integer", s)
		}
		if !fitsInt(t, v) {
			return nil, fmt.Errorf("%w: %s is not a %s", ErrValueRange, describe(v), t)
		}
		return v, nil
	case abi.AddressTy:
		if !common.IsHexAddress(s) {
			return nil, fmt.Errorf("%q is not an address", s)
		}
		return strings.ToLower(common.HexToAddress(s).Hex()), nil
	case abi.BoolTy:
		if s != "true" && s != "false" {
			return nil, fmt.Errorf("%q is not a bool", s)
		}
		return s, nil
	}
	return strings.ToLower(s), nil
}

// fitsInt reports whether v is in the range of the integer type t: 0 … 2^size − 1 for uintN,
// −2^(size−1) … 2^(size−1) − 1 for intN. A condition value outside it would hold for every
// argument or for none.
func fitsInt(t abi.Type, v *big.Int) bool {
	if t.T == abi.UintTy {
		return v.Sign() >= 0 && v.BitLen() <= t.Size
	}
	limit := new(big.Int).Lsh(big.NewInt(1), uint(t.Size-1)) // 2^(size−1)
	return v.Cmp(new(big.Int).Neg(limit)) >= 0 && v.Cmp(limit) < 0
}

func compare(op string, got, want any) (bool, error) {
	if g, ok := got.(*big.Int); ok {
		c := g.Cmp(want.(*big.Int))
		switch op {
		case "eq", "in":
			return c == 0, nil
		case "ne":
			return c != 0, nil
		case "lt":
			return c < 0, nil
		case "le":
			return c <= 0, nil
		case "gt":
			return c > 0, nil
		case "ge":
			return c >= 0, nil
		}
		return false, fmt.Errorf("unknown op %q", op)
	}
	switch op {
	case "eq", "in":
		return got == want, nil
	case "ne":
		return got != want, nil
	}
	return false, fmt.Errorf("op %q needs an integer argument", op)
}
