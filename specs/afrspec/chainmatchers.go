package afrspec

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	gtypes "github.com/onsi/gomega/types"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/tracesim"
)

// ---- RevertWith ----

type revertMatcher struct {
	name string
	args []any
	// set by Match for the messages
	outcome string
	got     *Revert
	argIdx  int // first mismatching argument, or -1
}

// RevertWith succeeds when the call reverted with the custom error name
// (PaceSmartAccount's, EpochAnchor's, "Error" or "Panic") and, for each
// given argument, a decoded argument equal to it (integers compare by
// value, addresses and hashes also as hex strings) or matched by it when
// it is a Gomega matcher. Fewer arguments than the error has check a
// prefix. The actual value is a *TxResult, an error carrying revert data,
// or the revert data itself.
func RevertWith(customError string, args ...any) gtypes.GomegaMatcher {
	return &revertMatcher{name: customError, args: args, argIdx: -1}
}

func errorNames() string {
	var names []string
	for _, e := range knownErrors {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func (m *revertMatcher) Match(actual any) (bool, error) {
	known := m.name == "Error" || m.name == "Panic"
	if known && len(m.args) > 1 {
		return false, fmt.Errorf("RevertWith: %s has 1 argument, %d given", m.name, len(m.args))
	}
	for _, e := range knownErrors {
		if e.Name == m.name {
			known = true
			if len(m.args) > len(e.Inputs) {
				return false, fmt.Errorf("RevertWith: %s has %d argument(s), %d given", e.Sig, len(e.Inputs), len(m.args))
			}
		}
	}
	if !known {
		return false, fmt.Errorf("RevertWith: unknown custom error %q (known: Error, Panic, %s)", m.name, errorNames())
	}
	data, outcome, reverted, err := revertOf(actual)
	if err != nil {
		return false, err
	}
	m.outcome, m.got, m.argIdx = outcome, nil, -1
	if !reverted {
		return false, nil
	}
	m.got = DecodeRevert(data)
	if m.got.Name != m.name {
		return false, nil
	}
	for i, want := range m.args {
		if i >= len(m.got.Args) {
			return false, fmt.Errorf("RevertWith: %s reverted with %d argument(s), %d expected", m.got.Name, len(m.got.Args), len(m.args))
		}
		ok, err := argMatches(want, m.got.Args[i])
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
	parts := make([]string, len(m.args))
	for i, a := range m.args {
		parts[i] = describeWant(a)
	}
	return fmt.Sprintf("%s(%s)", m.name, strings.Join(parts, ", "))
}

func (m *revertMatcher) FailureMessage(actual any) string {
	switch {
	case m.got == nil:
		return fmt.Sprintf("Expected a revert with %s, but the %s", m.expected(), m.outcome)
	case m.got.Name != m.name:
		return fmt.Sprintf("Expected a revert with %s, but it reverted with %s", m.expected(), m.got)
	}
	i := m.argIdx
	in := argName(m.name, i)
	return fmt.Sprintf("Expected a revert with %s, but it reverted with %s: argument %d (%s) is %s, expected %s",
		m.expected(), m.got, i, in, formatArg(m.got.Args[i]), describeWant(m.args[i]))
}

func (m *revertMatcher) NegatedFailureMessage(actual any) string {
	return fmt.Sprintf("Expected no revert with %s, but it reverted with %s", m.expected(), m.got)
}

func argName(errName string, i int) string {
	for _, e := range knownErrors {
		if e.Name == errName && i < len(e.Inputs) {
			return e.Inputs[i].Name
		}
	}
	return "?"
}

// ---- EmitEvent ----

// Fields are event fields by name, for EmitEvent.
type Fields map[string]any

// DecodedEvent is one log decoded by the harness.
type DecodedEvent struct {
	Name    string
	Address common.Address
	Fields  Fields
	order   []string
}

func (e DecodedEvent) String() string {
	parts := make([]string, 0, len(e.order))
	for _, k := range e.order {
		parts = append(parts, k+"="+formatArg(e.Fields[k]))
	}
	return fmt.Sprintf("%s(%s)", e.Name, strings.Join(parts, ", "))
}

var knownEvents = func() map[common.Hash]abi.Event {
	m := map[common.Hash]abi.Event{}
	for _, a := range []abi.ABI{bindings.NewPaceSmartAccount().GetABI(), bindings.NewEpochAnchor().GetABI()} {
		for _, e := range a.Events {
			m[e.ID] = e
		}
	}
	return m
}()

// DecodeLog decodes a log of PaceSmartAccount or EpochAnchor. Executed
// events also get the fields packed in their call word: target, selector,
// success (pdr.ParseExecuted).
func DecodeLog(l *types.Log) (DecodedEvent, bool) {
	if len(l.Topics) == 0 {
		return DecodedEvent{}, false
	}
	e, ok := knownEvents[l.Topics[0]]
	if !ok {
		return DecodedEvent{}, false
	}
	ev := DecodedEvent{Name: e.Name, Address: l.Address, Fields: Fields{}}
	vals := map[string]any{}
	if err := e.Inputs.NonIndexed().UnpackIntoMap(vals, l.Data); err != nil {
		return DecodedEvent{}, false
	}
	var indexed abi.Arguments
	for _, in := range e.Inputs {
		if in.Indexed {
			indexed = append(indexed, in)
		}
	}
	if len(indexed) != len(l.Topics)-1 {
		return DecodedEvent{}, false
	}
	if err := abi.ParseTopicsIntoMap(vals, indexed, l.Topics[1:]); err != nil {
		return DecodedEvent{}, false
	}
	for _, in := range e.Inputs {
		ev.Fields[in.Name], ev.order = vals[in.Name], append(ev.order, in.Name)
	}
	if e.Name == "Executed" {
		if x, err := pdr.ParseExecuted(l); err == nil {
			ev.Fields["target"], ev.Fields["selector"], ev.Fields["success"] = x.Target, x.Selector, x.Success
			ev.order = append(ev.order, "target", "selector", "success")
		}
	}
	return ev, true
}

type emitMatcher struct {
	name   string
	fields []any // name, value pairs
	// for messages
	outcome string
	seen    []DecodedEvent
	why     string
}

// EmitEvent succeeds when the mined transaction emitted an event name of
// PaceSmartAccount or EpochAnchor whose fields match: fields are name,
// value pairs (values or Gomega matchers), or one Fields map. The actual
// value is a *TxResult or a *types.Receipt.
func EmitEvent(name string, fields ...any) gtypes.GomegaMatcher {
	if len(fields) == 1 {
		if f, ok := fields[0].(Fields); ok {
			fields = nil
			keys := make([]string, 0, len(f))
			for k := range f {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fields = append(fields, k, f[k])
			}
		}
	}
	return &emitMatcher{name: name, fields: fields}
}

func receiptOf(actual any) (*types.Receipt, string, error) {
	switch a := actual.(type) {
	case *TxResult:
		if a == nil {
			return nil, "", errors.New("got a nil *TxResult")
		}
		if !a.Succeeded() {
			return nil, a.String(), nil
		}
		return a.Receipt, "", nil
	case *types.Receipt:
		if a == nil {
			return nil, "", errors.New("got a nil *types.Receipt")
		}
		if a.Status != types.ReceiptStatusSuccessful {
			return nil, fmt.Sprintf("transaction %s failed on chain (status 0)", a.TxHash), nil
		}
		return a, "", nil
	}
	return nil, "", fmt.Errorf("expected a *afrspec.TxResult or *types.Receipt, got %T", actual)
}

func (m *emitMatcher) Match(actual any) (bool, error) {
	if len(m.fields)%2 != 0 {
		return false, fmt.Errorf("EmitEvent(%q): fields must be name, value pairs; got %d values", m.name, len(m.fields))
	}
	known := false
	for _, e := range knownEvents {
		known = known || e.Name == m.name
	}
	if !known {
		return false, fmt.Errorf("EmitEvent: unknown event %q (PaceSmartAccount and EpochAnchor events only)", m.name)
	}
	rc, outcome, err := receiptOf(actual)
	if err != nil {
		return false, fmt.Errorf("EmitEvent: %w", err)
	}
	m.outcome, m.seen, m.why = outcome, nil, ""
	if rc == nil {
		return false, nil
	}
	for _, l := range rc.Logs {
		if ev, ok := DecodeLog(l); ok {
			m.seen = append(m.seen, ev)
		}
	}
	for _, ev := range m.seen {
		if ev.Name != m.name {
			continue
		}
		ok, why, err := m.fieldsMatch(ev)
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

func (m *emitMatcher) fieldsMatch(ev DecodedEvent) (bool, string, error) {
	for i := 0; i < len(m.fields); i += 2 {
		k, ok := m.fields[i].(string)
		if !ok {
			return false, "", fmt.Errorf("EmitEvent: field name %v is not a string", m.fields[i])
		}
		got, present := ev.Fields[k]
		if !present {
			return false, "", fmt.Errorf("EmitEvent: %s has no field %q (fields: %s)", ev.Name, k, strings.Join(ev.order, ", "))
		}
		ok, err := argMatches(m.fields[i+1], got)
		if err != nil {
			return false, "", err
		}
		if !ok {
			return false, fmt.Sprintf("field %s is %s, expected %s", k, formatArg(got), describeWant(m.fields[i+1])), nil
		}
	}
	return true, "", nil
}

func (m *emitMatcher) expected() string {
	parts := []string{}
	for i := 0; i+1 < len(m.fields); i += 2 {
		parts = append(parts, fmt.Sprintf("%v=%s", m.fields[i], describeWant(m.fields[i+1])))
	}
	return fmt.Sprintf("%s(%s)", m.name, strings.Join(parts, ", "))
}

func (m *emitMatcher) FailureMessage(actual any) string {
	if m.outcome != "" {
		return fmt.Sprintf("Expected an event %s, but the %s", m.expected(), m.outcome)
	}
	var seen []string
	for _, ev := range m.seen {
		seen = append(seen, "\n    - "+ev.String())
	}
	if len(seen) == 0 {
		seen = []string{" none of PaceSmartAccount or EpochAnchor"}
	}
	why := ""
	if m.why != "" {
		why = "\n  closest " + m.name + ": " + m.why
	}
	return fmt.Sprintf("Expected an event %s, but the transaction emitted:%s%s", m.expected(), strings.Join(seen, ""), why)
}

func (m *emitMatcher) NegatedFailureMessage(actual any) string {
	return fmt.Sprintf("Expected no event %s, but the transaction emitted one", m.expected())
}

// ---- UseGasAtMost ----

type gasMatcher struct {
	max  uint64
	used uint64
	desc string
}

// UseGasAtMost succeeds when the transaction used at most n gas (whole
// transaction: intrinsic and calldata included). The actual value is a
// *TxResult, a *types.Receipt or a gas figure (uint64).
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
	case *TxResult:
		if a == nil || a.Receipt == nil {
			return false, fmt.Errorf("UseGasAtMost: no mined transaction to measure: %s", a)
		}
		m.used, m.desc = a.Receipt.GasUsed, "transaction "+a.Receipt.TxHash.Hex()
	default:
		return false, fmt.Errorf("UseGasAtMost expects a *afrspec.TxResult, *types.Receipt or uint64, got %T", actual)
	}
	return m.used <= m.max, nil
}

func (m *gasMatcher) FailureMessage(any) string {
	over := m.used - m.max
	return fmt.Sprintf("Expected at most %s gas, but %s used %s (%s over, +%.2f%%)", commas(m.max), m.desc, commas(m.used), commas(over), 100*float64(over)/float64(m.max))
}

func (m *gasMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("Expected more than %s gas, but %s used %s", commas(m.max), m.desc, commas(m.used))
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
