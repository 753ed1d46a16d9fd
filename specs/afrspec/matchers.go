package afrspec

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/onsi/gomega/types"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/internal/show"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/world"
)

// ---- verification matchers ----

// reportOf accepts what specs hold after a verification.
func reportOf(actual any) (*world.Verification, error) {
	switch r := actual.(type) {
	case *world.Verification:
		if r != nil && r.Report != nil {
			return r, nil
		}
	case world.Verification:
		if r.Report != nil {
			return &r, nil
		}
	case *verifier.Report:
		if r != nil {
			return &world.Verification{Report: r}, nil
		}
	case verifier.Report:
		return &world.Verification{Report: &r}, nil
	case *verifier.BundleReport:
		if r != nil {
			return &world.Verification{Report: &r.Report}, nil
		}
	default:
		return nil, fmt.Errorf("expected a verification report (*world.Verification, *verifier.Report or *verifier.BundleReport), got %T", actual)
	}
	return nil, fmt.Errorf("expected a verification report, got a nil %T", actual)
}

// hints say what a finding usually means and what to check.
var hints = map[verifier.FindingKind]string{
	verifier.KindUnsealed:          "events were recorded after the last sealed epoch: call World.SealAndAnchor before verifying",
	verifier.KindUnanchored:        "epochs were sealed but their roots are not on chain yet: call World.SealAndAnchor and wait for it before verifying",
	verifier.KindTruncated:         "the log ends before epochs that were anchored: a stale or truncated copy",
	verifier.KindMerkleMismatch:    "a record of this epoch changed after the epoch was sealed",
	verifier.KindChainBreak:        "a record was edited, removed or inserted just before this event",
	verifier.KindSequence:          "records were inserted, deleted or reordered",
	verifier.KindAnchorMismatch:    "the epoch header differs from the root anchored on chain: replaced header, fork or rollback",
	verifier.KindChainHeadMismatch: "the epoch header's chain head is not its last record: a linear-fake epoch",
	verifier.KindPayloadMismatch:   "a payload frame was edited or swapped",
	verifier.KindAnchorConflict:    "the anchor source is inconsistent (two roots for an epoch, or a broken back-pointer)",
	verifier.KindExecUnrecorded:    "an on-chain PACE execution names an event id that is not in the log",
}

func hintFor(r *verifier.Report) string {
	for _, f := range r.Findings {
		if h, ok := hints[f.Kind]; ok {
			return fmt.Sprintf("\n  hint (%s): %s", f.Kind, h)
		}
	}
	return ""
}

type verdictMatcher struct {
	want verifier.Verdict
}

// BeVerified succeeds when the verdict is verified: every record in an
// epoch whose root matches its anchor, nothing missing. The failure message
// lists the findings and a hint for the first one it recognises.
func BeVerified() types.GomegaMatcher { return &verdictMatcher{want: verifier.Verified} }

// BeIncomplete succeeds when the verdict is incomplete: nothing contradicts
// the anchors, but something is missing or unanchored.
func BeIncomplete() types.GomegaMatcher { return &verdictMatcher{want: verifier.Incomplete} }

func (m *verdictMatcher) Match(actual any) (bool, error) {
	r, err := reportOf(actual)
	if err != nil {
		return false, err
	}
	return r.Verdict == m.want, nil
}

func (m *verdictMatcher) FailureMessage(actual any) string {
	r, _ := reportOf(actual)
	return fmt.Sprintf("Expected the log to be %s, but the verifier says %s%s", m.want, describeReport(r.Report), hintFor(r.Report))
}

func (m *verdictMatcher) NegatedFailureMessage(actual any) string {
	r, _ := reportOf(actual)
	return fmt.Sprintf("Expected the log not to be %s, but it is: %s", m.want, describeReport(r.Report))
}

type tamperedAtMatcher struct {
	seq uint64
}

// BeTamperedAt succeeds when the verdict is tampered and a finding of class
// tampered locates event seq: its events [seq, seq+count) include it, or
// the epoch it names (a Merkle mismatch, a replaced header, a chain-head
// mismatch) covers seq in the report's epoch layout (reports from
// World.Verify and World.VerifyImage carry it).
func BeTamperedAt(seq uint64) types.GomegaMatcher { return &tamperedAtMatcher{seq: seq} }

func (m *tamperedAtMatcher) locates(r *world.Verification, f verifier.Finding) bool {
	return f.Class == verifier.ClassTampered && f.Covers(m.seq, r.EpochOf)
}

func (m *tamperedAtMatcher) Match(actual any) (bool, error) {
	r, err := reportOf(actual)
	if err != nil {
		return false, err
	}
	if r.Verdict != verifier.Tampered {
		return false, nil
	}
	for _, f := range r.Findings {
		if m.locates(r, f) {
			return true, nil
		}
	}
	return false, nil
}

func (m *tamperedAtMatcher) FailureMessage(actual any) string {
	r, _ := reportOf(actual)
	where := fmt.Sprintf("event %d", m.seq)
	if t, ok := r.EpochOf(m.seq); ok {
		where += fmt.Sprintf(" (epoch %d)", t)
	} else if len(r.Spans) == 0 {
		where += " (no epoch layout: findings naming only an epoch cannot be placed; verify through World.Verify or World.VerifyImage)"
	}
	if r.Verdict != verifier.Tampered {
		return fmt.Sprintf("Expected the log to be tampered at %s, but the verifier says %s%s", where, describeReport(r.Report), hintFor(r.Report))
	}
	return fmt.Sprintf("Expected a tampered finding at %s, but the findings point elsewhere: %s", where, describeReport(r.Report))
}

func (m *tamperedAtMatcher) NegatedFailureMessage(actual any) string {
	r, _ := reportOf(actual)
	return fmt.Sprintf("Expected no tampered finding at event %d, but: %s", m.seq, describeReport(r.Report))
}

type findingMatcher struct {
	kind verifier.FindingKind
}

// HaveFinding succeeds when the report has a finding of kind (see
// verifier/finding.go and docs/SPEC.md, "Verification"). An unknown kind is
// an error naming the known ones.
func HaveFinding(kind verifier.FindingKind) types.GomegaMatcher { return &findingMatcher{kind: kind} }

func (m *findingMatcher) Match(actual any) (bool, error) {
	if !isKnownKind(m.kind) {
		return false, fmt.Errorf("HaveFinding: unknown finding kind %q (known kinds: %s)", m.kind, kindList())
	}
	r, err := reportOf(actual)
	if err != nil {
		return false, err
	}
	return r.Has(m.kind), nil
}

func (m *findingMatcher) FailureMessage(actual any) string {
	r, _ := reportOf(actual)
	return fmt.Sprintf("Expected a finding of kind %s (class %s), but the report has %s: %s", m.kind, m.kind.Class(), kindSummary(r.Report), describeReport(r.Report))
}

func (m *findingMatcher) NegatedFailureMessage(actual any) string {
	r, _ := reportOf(actual)
	return fmt.Sprintf("Expected no finding of kind %s, but: %s", m.kind, describeReport(r.Report))
}

// ---- argument comparison ----

// argMatches compares an expected argument (a value or a Gomega matcher)
// with a decoded one. Integers of any Go type and *big.Int compare by
// value (so do whole float64s: an untyped 1e18 passed as any is one);
// addresses and hashes also match their hex strings. A matcher is given
// the decoded value itself — an integer as a *big.Int in canonical form,
// so that Equal(big.NewInt(0)) matches a decoded zero — and BeNumerically
// (this package's) compares it numerically.
func argMatches(want, got any) (bool, error) {
	if m, ok := want.(types.GomegaMatcher); ok {
		b, isBig := got.(*big.Int)
		if !isBig {
			return m.Match(got)
		}
		ok, err := m.Match(new(big.Int).Set(b)) // a copy: zero has no limbs, as big.NewInt(0)
		if err != nil {
			return false, fmt.Errorf("%w (decoded integers are *big.Int: give a value, Equal(big.NewInt(n)) or afrspec.BeNumerically)", err)
		}
		return ok, nil
	}
	if wb, ok := toBig(want); ok {
		if gb, ok := toBig(got); ok {
			return wb.Cmp(gb) == 0, nil
		}
		return false, nil
	}
	switch w := want.(type) {
	case string:
		return strings.EqualFold(w, show.Arg(got)), nil
	case common.Hash:
		want = [32]byte(w)
	case *common.Address:
		want = *w
	}
	if g, ok := got.(common.Hash); ok {
		got = [32]byte(g)
	}
	return reflect.DeepEqual(want, got), nil
}

// numericMatcher is BeNumerically.
type numericMatcher struct {
	op   string
	want *big.Int
}

// BeNumerically compares integers by value, as Gomega's BeNumerically does
// for Go numbers, but also for *big.Int of any size on either side (decoded
// uint256 values, balances): BeNumerically(">=", big.NewInt(1e18)),
// BeNumerically("==", 0). The operators are ==, !=, <, <=, > and >=.
func BeNumerically(op string, want any) types.GomegaMatcher {
	m := &numericMatcher{op: op}
	m.want, _ = toBig(want)
	return m
}

func (m *numericMatcher) Match(actual any) (bool, error) {
	if m.want == nil {
		return false, errors.New("BeNumerically: the expected value is not an integer")
	}
	got, ok := toBig(actual)
	if !ok {
		return false, fmt.Errorf("BeNumerically: expected an integer or a *big.Int, got %T", actual)
	}
	c := got.Cmp(m.want)
	switch m.op {
	case "==":
		return c == 0, nil
	case "!=":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	case ">=":
		return c >= 0, nil
	}
	return false, fmt.Errorf("BeNumerically: unknown operator %q (use ==, !=, <, <=, > or >=)", m.op)
}

func (m *numericMatcher) FailureMessage(actual any) string {
	return fmt.Sprintf("Expected %s to be %s %s", show.Arg(actual), m.op, m.want)
}

func (m *numericMatcher) NegatedFailureMessage(actual any) string {
	return fmt.Sprintf("Expected %s not to be %s %s", show.Arg(actual), m.op, m.want)
}

func toBig(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case *big.Int:
		return x, x != nil
	case big.Int:
		return &x, true
	case int:
		return big.NewInt(int64(x)), true
	case int8:
		return big.NewInt(int64(x)), true
	case int16:
		return big.NewInt(int64(x)), true
	case int32:
		return big.NewInt(int64(x)), true
	case int64:
		return big.NewInt(x), true
	case uint:
		return new(big.Int).SetUint64(uint64(x)), true
	case uint8:
		return new(big.Int).SetUint64(uint64(x)), true
	case uint16:
		return new(big.Int).SetUint64(uint64(x)), true
	case uint32:
		return new(big.Int).SetUint64(uint64(x)), true
	case uint64:
		return new(big.Int).SetUint64(x), true
	case float64: // an untyped constant such as 1e18 given as any
		if f := big.NewFloat(x); f.IsInt() {
			i, _ := f.Int(nil)
			return i, true
		}
	}
	return nil, false
}

func describeWant(want any) string { return describeWantIn(nil, want) }

// describeWantIn is describeWant with addresses named by reg.
func describeWantIn(reg *calldata.Registry, want any) string {
	if m, ok := want.(types.GomegaMatcher); ok {
		return fmt.Sprintf("<matcher %T>", m)
	}
	return show.Value(reg, want)
}
