package afrspec

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	gtypes "github.com/onsi/gomega/types"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/show"
	"github.com/agentflightrecorder/afr/tracesim"
	"github.com/agentflightrecorder/afr/world"
)

// ---- what the revert and event matchers decode with ----

// known lists the errors or events (what: "error" or "event") of every
// contract reg knows (nil: AFR's contracts), with their parameters, and
// describes them for messages.
type known struct {
	what   string
	world  bool // the registry is a World's
	inputs map[string][]abi.Arguments
	byName map[string][]string // contract → names
}

func knownOf(reg *calldata.Registry, what string) *known {
	k := &known{what: what, world: reg != nil, inputs: map[string][]abi.Arguments{}, byName: map[string][]string{}}
	for _, rg := range world.Decoders(reg) {
		for _, cn := range rg.Names() {
			c, _ := rg.Contract(cn)
			add := func(name string, in abi.Arguments) {
				if !contains(k.byName[cn], name) {
					k.byName[cn] = append(k.byName[cn], name)
				}
				k.inputs[name] = append(k.inputs[name], in)
			}
			if what == "error" {
				for _, e := range c.ABI.Errors {
					add(e.Name, e.Inputs)
				}
			} else {
				for _, e := range c.ABI.Events {
					add(e.RawName, e.Inputs)
				}
			}
		}
	}
	if what == "error" {
		k.inputs["Error"], k.inputs["Panic"] = []abi.Arguments{calldata.ErrorArgs}, []abi.Arguments{calldata.PanicArgs}
	}
	return k
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// check refuses a name no contract defines, and more arguments than any
// definition of the name has.
func (k *known) check(matcher, name string, nargs int) error {
	defs, ok := k.inputs[name]
	if !ok {
		who := "no contract known to this World"
		if !k.world {
			who = "no contract known without a World (AFR's own and the standard ERC-20/721; pass the *world.TxResult of World.Send to decode the World's contracts)"
		}
		return fmt.Errorf("%s: %s has an %s named %q (known: %s)", matcher, who, k.what, name, k.list())
	}
	most := 0
	for _, in := range defs {
		most = max(most, len(in))
	}
	if nargs > most {
		return fmt.Errorf("%s: %s %s has %d argument(s), %d given", matcher, k.what, name, most, nargs)
	}
	return nil
}

func (k *known) list() string {
	var parts []string
	if k.what == "error" {
		parts = append(parts, "Error, Panic")
	}
	contracts := make([]string, 0, len(k.byName))
	for c := range k.byName {
		contracts = append(contracts, c)
	}
	sort.Strings(contracts)
	for _, c := range contracts {
		names := append([]string(nil), k.byName[c]...)
		sort.Strings(names)
		parts = append(parts, c+": "+strings.Join(names, ", "))
	}
	return strings.Join(parts, "; ")
}

// ---- RevertWith, RevertWithPanic, Revert ----

// revertSubject is what a revert matcher was given, made uniform.
type revertSubject struct {
	data     []byte
	reverted bool
	outcome  string // what happened instead of a revert
	reg      *calldata.Registry
	at       *common.Address
	res      *world.TxResult // nil for an error or raw data
}

// revertOf extracts revert data from what a spec holds: a *world.TxResult, an
// error carrying revert data, or the raw bytes.
func revertOf(matcher string, actual any) (revertSubject, error) {
	switch a := actual.(type) {
	case *world.TxResult:
		if a == nil {
			return revertSubject{}, fmt.Errorf("%s: got a nil *world.TxResult", matcher)
		}
		s := revertSubject{reg: a.Registry, at: &a.To, reverted: a.Reverted, data: a.RevertData, res: a}
		if !a.Reverted {
			s.outcome = a.String()
		}
		return s, nil
	case []byte:
		if len(a) == 0 {
			return revertSubject{outcome: "revert data is empty (the call did not revert)"}, nil
		}
		return revertSubject{data: a, reverted: true}, nil
	case error:
		if rd, ok := chain.Reverted(a); ok {
			return revertSubject{data: rd, reverted: true}, nil
		}
		return revertSubject{outcome: fmt.Sprintf("error carries no revert data: %v", a)}, nil
	case nil:
		return revertSubject{outcome: "call succeeded (nil error)"}, nil
	}
	return revertSubject{}, fmt.Errorf("%s expects a *world.TxResult, an error or revert data ([]byte), got %T", matcher, actual)
}

type revertMatcher struct {
	matcher string
	name    string // "" for Revert(): any revert
	args    []any
	// set by Match for the messages
	subj   revertSubject
	got    *calldata.Revert
	argIdx int // first mismatching argument, or -1
}

// RevertWith succeeds when the call reverted with the error name — a
// custom error of any contract the World knows (every artifact it deployed
// or loaded and every ABI added to w.Registry()), "Error" for
// require/revert strings (RevertWith("Error", "insufficient deposit")) or
// "Panic" for panics — and, for each given argument, a decoded argument
// equal to it (integers compare by value, addresses and hashes also as hex
// strings) or matched by it when it is a Gomega matcher. Fewer arguments
// than the error has check a prefix. The actual value is a *world.TxResult (its
// World's registry decodes), an error carrying revert data, or the revert
// data itself (both decoded with AFR's own contracts only).
func RevertWith(name string, args ...any) gtypes.GomegaMatcher {
	return &revertMatcher{matcher: "RevertWith", name: name, args: args, argIdx: -1}
}

// RevertWithPanic succeeds when the call reverted with Panic(code), e.g.
// 0x11 for an arithmetic overflow, 0x12 for a division by zero. It is
// RevertWith("Panic", code).
func RevertWithPanic(code uint64) gtypes.GomegaMatcher {
	return &revertMatcher{matcher: "RevertWithPanic", name: "Panic", args: []any{code}, argIdx: -1}
}

// Revert succeeds when the call reverted, with any error or none.
func Revert() gtypes.GomegaMatcher { return &revertMatcher{matcher: "Revert", argIdx: -1} }

func (m *revertMatcher) Match(actual any) (bool, error) {
	subj, err := revertOf(m.matcher, actual)
	if err != nil {
		return false, err
	}
	m.subj, m.got, m.argIdx = subj, nil, -1
	if m.name != "" {
		if err := knownOf(subj.reg, "error").check(m.matcher, m.name, len(m.args)); err != nil {
			return false, err
		}
	}
	if !subj.reverted {
		return false, nil
	}
	if subj.res != nil {
		m.got = subj.res.DecodeRevert()
	} else {
		m.got = world.DecodeRevertAt(subj.reg, subj.data, subj.at)
	}
	if m.name == "" {
		return true, nil
	}
	if m.got.Name != m.name {
		return false, nil
	}
	for i, want := range m.args {
		if i >= len(m.got.Values) {
			return false, fmt.Errorf("%s: it reverted with %s: %d argument(s), %d expected", m.matcher, m.got.Qualified(), len(m.got.Values), len(m.args))
		}
		ok, err := argMatches(want, m.got.Values[i])
		if err != nil {
			return false, err
		}
		if !ok {
			m.argIdx = i
			return false, nil
		}
	}
	return true, nil
}

func (m *revertMatcher) expected() string {
	if m.name == "" {
		return "any error"
	}
	parts := make([]string, len(m.args))
	for i, a := range m.args {
		parts[i] = describeWantIn(m.subj.reg, a)
	}
	return fmt.Sprintf("%s(%s)", m.name, strings.Join(parts, ", "))
}

func (m *revertMatcher) FailureMessage(actual any) string {
	return m.failure() + traceNote(actual)
}

func (m *revertMatcher) failure() string {
	switch {
	case m.got == nil:
		return fmt.Sprintf("Expected a revert with %s, but the %s", m.expected(), m.subj.outcome)
	case m.got.Name != m.name:
		return fmt.Sprintf("Expected a revert with %s, but it reverted with %s", m.expected(), m.qualified())
	}
	i := m.argIdx
	got := show.Value(m.subj.reg, m.got.Values[i])
	if m.got.Name == "Panic" {
		got = fmt.Sprintf("0x%x", m.got.Values[i])
	}
	return fmt.Sprintf("Expected a revert with %s, but it reverted with %s: argument %d (%s) is %s, expected %s",
		m.expected(), m.qualified(), i, paramName(m.got.Args[i].Name), got, describeWantIn(m.subj.reg, m.args[i]))
}

// qualified renders the decoded revert with the World's names.
func (m *revertMatcher) qualified() string {
	return tracesim.FormatRevert(m.got, func(a common.Address) string { return show.Address(m.subj.reg, a) })
}

// traceNote is the trace of the transaction a matcher was given, for its
// failure message: the decoded call tree (world.TxResult.Trace), or why
// there is none. Other subjects have none.
func traceNote(actual any) string {
	r, ok := actual.(*world.TxResult)
	if !ok || r == nil || r.Receipt == nil && !r.Reverted {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t, err := r.Trace(ctx)
	switch {
	case errors.Is(err, world.ErrNoWorld):
		return ""
	case err != nil:
		return "\n  (no trace: " + err.Error() + ")"
	}
	return "\nTrace:\n  " + strings.ReplaceAll(t.String(), "\n", "\n  ")
}

func paramName(n string) string {
	if n == "" {
		return "unnamed"
	}
	return n
}

func (m *revertMatcher) NegatedFailureMessage(actual any) string {
	return fmt.Sprintf("Expected no revert with %s, but it reverted with %s", m.expected(), m.qualified()) + traceNote(actual)
}

// ---- EmitEvent, EmitEventFrom ----

// Fields are event fields by name, for EmitEvent.
type Fields map[string]any

// Args are event arguments by position, for EmitEvent (as withArgs of
// hardhat-chai-matchers); fewer than the event has check a prefix.
type Args []any

type emitMatcher struct {
	matcher string
	name    string
	from    *common.Address
	pos     []any
	fields  []any // name, value pairs
	err     error // malformed arguments
	// for messages
	outcome string
	reg     *calldata.Registry
	seen    []world.DecodedEvent
	unknown int // logs no known contract defines
	why     string
}

// EmitEvent succeeds when the mined transaction emitted the event name of
// any contract the World knows (every artifact it deployed or loaded, every
// ABI added to w.Registry(), the standard ERC-20/721 events) with arguments
// that match. Arguments are given by position in Args{…} (as withArgs),
// by name as name, value pairs or in a Fields{…} map, or both; values are
// compared as in RevertWith, or matched by Gomega matchers. The actual
// value is a *world.TxResult (decoded with its World's registry) or a
// *types.Receipt (AFR's contracts and the standard events only).
func EmitEvent(name string, args ...any) gtypes.GomegaMatcher {
	m := &emitMatcher{matcher: "EmitEvent", name: name}
	m.parse(args)
	return m
}

// EmitEventFrom is EmitEvent for events emitted by the contract at
// emitter only (as expectEmit checks the emitter).
func EmitEventFrom(emitter common.Address, name string, args ...any) gtypes.GomegaMatcher {
	m := &emitMatcher{matcher: "EmitEventFrom", name: name, from: &emitter}
	m.parse(args)
	return m
}

func (m *emitMatcher) parse(args []any) {
	for i := 0; i < len(args); i++ {
		switch a := args[i].(type) {
		case Args:
			m.pos = append(m.pos, a...)
		case Fields:
			keys := make([]string, 0, len(a))
			for k := range a {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				m.fields = append(m.fields, k, a[k])
			}
		case string:
			if i+1 == len(args) {
				m.err = fmt.Errorf("%s(%q): field %q has no value (give name, value pairs, Args{…} or Fields{…})", m.matcher, m.name, a)
				return
			}
			m.fields = append(m.fields, a, args[i+1])
			i++
		default:
			m.err = fmt.Errorf("%s(%q): argument %d is a %T, not a field name (give name, value pairs, Args{…} by position or Fields{…} by name)", m.matcher, m.name, i, a)
			return
		}
	}
}

type eventSubject struct {
	rc      *types.Receipt
	outcome string
	reg     *calldata.Registry
}

func receiptOf(actual any) (eventSubject, error) {
	switch a := actual.(type) {
	case *world.TxResult:
		if a == nil {
			return eventSubject{}, errors.New("got a nil *world.TxResult")
		}
		s := eventSubject{reg: a.Registry}
		switch {
		case a.Succeeded():
			s.rc = a.Receipt
		case a.Reverted:
			s.outcome = "it reverted with " + a.RevertString()
		default:
			s.outcome = "the " + a.String()
		}
		return s, nil
	case *types.Receipt:
		if a == nil {
			return eventSubject{}, errors.New("got a nil *types.Receipt")
		}
		if a.Status != types.ReceiptStatusSuccessful {
			return eventSubject{outcome: fmt.Sprintf("transaction %s failed on chain (status 0)", a.TxHash)}, nil
		}
		return eventSubject{rc: a}, nil
	}
	return eventSubject{}, fmt.Errorf("expected a *world.TxResult or *types.Receipt, got %T", actual)
}

func (m *emitMatcher) Match(actual any) (bool, error) {
	if m.err != nil {
		return false, m.err
	}
	subj, err := receiptOf(actual)
	if err != nil {
		return false, fmt.Errorf("%s: %w", m.matcher, err)
	}
	m.outcome, m.reg, m.seen, m.unknown, m.why = subj.outcome, subj.reg, nil, 0, ""
	if err := knownOf(subj.reg, "event").check(m.matcher, m.name, len(m.pos)); err != nil {
		return false, err
	}
	if subj.rc == nil {
		return false, nil
	}
	for _, l := range subj.rc.Logs {
		if ev, ok := world.DecodeLogWith(subj.reg, l); ok {
			m.seen = append(m.seen, ev)
		} else {
			m.unknown++
		}
	}
	for _, ev := range m.seen {
		if ev.Name != m.name {
			continue
		}
		if m.from != nil && ev.Address != *m.from {
			if m.why == "" {
				m.why = fmt.Sprintf("emitted by %s, not by %s", show.Address(m.reg, ev.Address), show.Address(m.reg, *m.from))
			}
			continue
		}
		ok, why, err := m.argsMatch(ev)
		if err != nil {
			return false, err
		}
		if ok {
			return true, nil
		}
		m.why = why
	}
	return false, nil
}

func (m *emitMatcher) argsMatch(ev world.DecodedEvent) (bool, string, error) {
	for i, want := range m.pos {
		if i >= len(ev.Args) {
			return false, "", fmt.Errorf("%s: %s has %d argument(s), %d given", m.matcher, ev, len(ev.Args), len(m.pos))
		}
		ok, err := argMatches(want, ev.Args[i])
		if err != nil {
			return false, "", err
		}
		if !ok {
			return false, fmt.Sprintf("argument %d (%s) is %s, expected %s", i, ev.Names[i], show.Value(m.reg, ev.Args[i]), describeWantIn(m.reg, want)), nil
		}
	}
	for i := 0; i < len(m.fields); i += 2 {
		k := m.fields[i].(string)
		got, present := ev.Fields[k]
		if !present {
			return false, "", fmt.Errorf("%s: %s has no field %q (fields: %s)", m.matcher, ev.Name, k, strings.Join(ev.Names, ", "))
		}
		ok, err := argMatches(m.fields[i+1], got)
		if err != nil {
			return false, "", err
		}
		if !ok {
			return false, fmt.Sprintf("field %s is %s, expected %s", k, show.Value(m.reg, got), describeWantIn(m.reg, m.fields[i+1])), nil
		}
	}
	return true, "", nil
}

func (m *emitMatcher) expected() string {
	parts := []string{}
	for _, a := range m.pos {
		parts = append(parts, describeWantIn(m.reg, a))
	}
	for i := 0; i+1 < len(m.fields); i += 2 {
		parts = append(parts, fmt.Sprintf("%v=%s", m.fields[i], describeWantIn(m.reg, m.fields[i+1])))
	}
	s := fmt.Sprintf("%s(%s)", m.name, strings.Join(parts, ", "))
	if m.from != nil {
		s += " from " + show.Address(m.reg, *m.from)
	}
	return s
}

func (m *emitMatcher) FailureMessage(actual any) string {
	return m.failure() + traceNote(actual)
}

func (m *emitMatcher) failure() string {
	if m.outcome != "" {
		return fmt.Sprintf("Expected an event %s, but %s", m.expected(), m.outcome)
	}
	var seen []string
	for _, ev := range m.seen {
		seen = append(seen, fmt.Sprintf("\n    - %s emitted by %s", eventString(m.reg, ev), show.Address(m.reg, ev.Address)))
	}
	if m.unknown > 0 {
		seen = append(seen, fmt.Sprintf("\n    - %d log(s) no known contract defines", m.unknown))
	}
	if len(seen) == 0 {
		seen = []string{" no events"}
	}
	why := ""
	if m.why != "" {
		why = "\n  closest " + m.name + ": " + m.why
	}
	return fmt.Sprintf("Expected an event %s, but the transaction emitted:%s%s", m.expected(), strings.Join(seen, ""), why)
}

// eventString is DecodedEvent.String with addresses named by reg.
func eventString(reg *calldata.Registry, e world.DecodedEvent) string {
	parts := make([]string, 0, len(e.Names))
	for _, k := range e.Names {
		parts = append(parts, k+"="+show.Value(reg, e.Fields[k]))
	}
	name := e.Name
	if e.Contract != "" {
		name = e.Contract + "." + name
	}
	return fmt.Sprintf("%s(%s)", name, strings.Join(parts, ", "))
}

func (m *emitMatcher) NegatedFailureMessage(actual any) string {
	return fmt.Sprintf("Expected no event %s, but the transaction emitted one", m.expected()) + traceNote(actual)
}

// ---- UseGasAtMost ----

type gasMatcher struct {
	max  uint64
	used uint64
	desc string
}

// UseGasAtMost succeeds when the transaction used at most n gas (whole
// transaction: intrinsic and calldata included). The actual value is a
// *world.TxResult, a *types.Receipt or a gas figure (uint64).
func UseGasAtMost(n uint64) gtypes.GomegaMatcher { return &gasMatcher{max: n} }

func (m *gasMatcher) Match(actual any) (bool, error) {
	switch a := actual.(type) {
	case uint64:
		m.used, m.desc = a, "the measurement"
	case *types.Receipt:
		if a == nil {
			return false, errors.New("UseGasAtMost: got a nil *types.Receipt")
		}
		m.used, m.desc = a.GasUsed, "transaction "+a.TxHash.Hex()
	case *world.TxResult:
		if a == nil || a.Receipt == nil {
			return false, fmt.Errorf("UseGasAtMost: no mined transaction to measure: %s", a)
		}
		m.used, m.desc = a.Receipt.GasUsed, "transaction "+a.Receipt.TxHash.Hex()
	default:
		return false, fmt.Errorf("UseGasAtMost expects a *world.TxResult, *types.Receipt or uint64, got %T", actual)
	}
	return m.used <= m.max, nil
}

func (m *gasMatcher) FailureMessage(actual any) string {
	over := m.used - m.max
	return fmt.Sprintf("Expected at most %s gas, but %s used %s (%s over, +%.2f%%)", show.Commas(m.max), m.desc, show.Commas(m.used), show.Commas(over), 100*float64(over)/float64(m.max)) + traceNote(actual)
}

func (m *gasMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("Expected more than %s gas, but %s used %s", show.Commas(m.max), m.desc, show.Commas(m.used))
}

// ---- MatchIntent ----

type intentMatcher struct {
	recorded format.Intent
	diffs    []calldata.Difference
	observed string
}

// MatchIntent succeeds when an observed execution matches the recorded
// intent (calldata.CompareIntent: chain id, target, value, function,
// arguments, calldata; the one inner call of a PACE execution when the
// recorded target is not the transaction's). The actual value is a
// calldata.Intent, a *tracesim.ReplayResult or a *tracesim.Simulation (its
// first call).
func MatchIntent(recorded format.Intent) gtypes.GomegaMatcher {
	return &intentMatcher{recorded: recorded}
}

func (m *intentMatcher) Match(actual any) (bool, error) {
	var in calldata.Intent
	switch a := actual.(type) {
	case calldata.Intent:
		in = a
	case *calldata.Intent:
		if a == nil {
			return false, errors.New("MatchIntent: got a nil *calldata.Intent")
		}
		in = *a
	case *tracesim.ReplayResult:
		if a == nil {
			return false, errors.New("MatchIntent: got a nil *tracesim.ReplayResult")
		}
		in = a.Intent
	case *tracesim.Simulation:
		if a == nil || len(a.Calls) == 0 {
			return false, errors.New("MatchIntent: got a simulation without calls")
		}
		in = a.Calls[0].Intent
	default:
		return false, fmt.Errorf("MatchIntent expects a calldata.Intent, *tracesim.ReplayResult or *tracesim.Simulation, got %T", actual)
	}
	target := "contract creation"
	if in.Target != nil {
		target = in.Target.Hex()
	}
	m.observed = fmt.Sprintf("%s on %s (value %s)", in.Tool, target, in.Value)
	m.diffs = calldata.CompareIntent(m.recorded, in)
	return len(m.diffs) == 0, nil
}

func (m *intentMatcher) FailureMessage(any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Expected the execution to match the recorded intent %s, but the observed %s differs in %d field(s):", m.recorded.Tool, m.observed, len(m.diffs))
	for _, d := range m.diffs {
		fmt.Fprintf(&b, "\n    - %s (%s level)", d, d.Level)
	}
	return b.String()
}

func (m *intentMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("Expected the execution %s not to match the recorded intent %s, but it does", m.observed, m.recorded.Tool)
}
