package afrspec

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	gtypes "github.com/onsi/gomega/types"
)

// Gas baseline environment variables.
const (
	// EnvGasUpdate, when "1", makes MatchGasBaseline rewrite the baseline
	// with the measurements instead of comparing (make gas-baseline).
	EnvGasUpdate = "AFR_GAS_UPDATE"
	// EnvGasTolerance overrides the tolerance: gas units ("50") or a
	// percentage ("0.5%"). Default 0: any change fails.
	EnvGasTolerance = "AFR_GAS_TOLERANCE"
)

// GasBaselineFormat names the baseline file format.
const GasBaselineFormat = "afr-gas-baseline"

// GasBaseline is the committed file of expected gas figures
// (fixtures/gas/baseline.json): whole-transaction gas by measurement name.
type GasBaseline struct {
	Format  string            `json:"format"`
	Version int               `json:"version"`
	Note    string            `json:"note,omitempty"`
	Gas     map[string]uint64 `json:"gas"`
}

// ReadGasBaseline reads a baseline file.
func ReadGasBaseline(path string) (*GasBaseline, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var g GasBaseline
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("afrspec: gas baseline %s: %w", path, err)
	}
	if g.Format != GasBaselineFormat || g.Version != 1 {
		return nil, fmt.Errorf("afrspec: gas baseline %s: format %q version %d, want %q version 1", path, g.Format, g.Version, GasBaselineFormat)
	}
	return &g, nil
}

// WriteGasBaseline writes measurements as a baseline file (sorted keys,
// two-space indent, trailing newline).
func WriteGasBaseline(path, note string, gas map[string]uint64) error {
	b, err := json.MarshalIndent(GasBaseline{Format: GasBaselineFormat, Version: 1, Note: note, Gas: gas}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Tolerance is how far a measurement may move from its baseline: Gas units
// or, when Percent > 0, a percentage of the baseline.
type Tolerance struct {
	Gas     uint64
	Percent float64
}

func (t Tolerance) String() string {
	if t.Percent > 0 {
		return strconv.FormatFloat(t.Percent, 'f', -1, 64) + "%"
	}
	return commas(t.Gas) + " gas"
}

func (t Tolerance) allows(old uint64, delta int64) bool {
	d := delta
	if d < 0 {
		d = -d
	}
	if t.Percent > 0 {
		return float64(d) <= t.Percent/100*float64(old)
	}
	return uint64(d) <= t.Gas
}

// ParseTolerance parses "50" (gas) or "0.5%".
func ParseTolerance(s string) (Tolerance, error) {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || f < 0 {
			return Tolerance{}, fmt.Errorf("afrspec: gas tolerance %q: want N or N%%", s)
		}
		return Tolerance{Percent: f}, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return Tolerance{}, fmt.Errorf("afrspec: gas tolerance %q: want N or N%%", s)
	}
	return Tolerance{Gas: n}, nil
}

// GasRow is one line of a comparison.
type GasRow struct {
	Name     string
	Old, New uint64 // 0 when absent
	Status   string // "ok", "REGRESSION", "IMPROVED", "NEW", "MISSING"
}

// CompareGas compares measurements with a baseline. Every measurement
// outside the tolerance fails — more gas and less gas alike, as forge
// snapshot --check does, so that the baseline moves only on purpose — and
// so does a measurement missing on either side.
func CompareGas(baseline, measured map[string]uint64, tol Tolerance) (rows []GasRow, failed bool) {
	names := map[string]bool{}
	for k := range baseline {
		names[k] = true
	}
	for k := range measured {
		names[k] = true
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		old, inOld := baseline[k]
		cur, inNew := measured[k]
		r := GasRow{Name: k, Old: old, New: cur, Status: "ok"}
		switch {
		case !inOld:
			r.Status = "NEW"
		case !inNew:
			r.Status = "MISSING"
		case !tol.allows(old, int64(cur)-int64(old)) && cur > old:
			r.Status = "REGRESSION"
		case !tol.allows(old, int64(cur)-int64(old)):
			r.Status = "IMPROVED"
		}
		failed = failed || r.Status != "ok"
		rows = append(rows, r)
	}
	return rows, failed
}

// GasTable renders rows as an aligned table: name, old, new, delta, %, status.
func GasTable(rows []GasRow) string {
	cells := [][]string{{"measurement", "baseline", "measured", "delta", "delta %", "status"}}
	for _, r := range rows {
		old, cur, delta, pct := "-", "-", "-", "-"
		if r.Old > 0 {
			old = commas(r.Old)
		}
		if r.New > 0 {
			cur = commas(r.New)
		}
		if r.Old > 0 && r.New > 0 {
			d := int64(r.New) - int64(r.Old)
			sign := "+"
			if d < 0 {
				sign = "-"
			}
			ad := d
			if ad < 0 {
				ad = -ad
			}
			delta = sign + commas(uint64(ad))
			pct = fmt.Sprintf("%+.2f%%", 100*float64(d)/float64(r.Old))
		}
		cells = append(cells, []string{r.Name, old, cur, delta, pct, r.Status})
	}
	width := make([]int, len(cells[0]))
	for _, row := range cells {
		for i, c := range row {
			width[i] = max(width[i], len(c))
		}
	}
	var b strings.Builder
	for n, row := range cells {
		b.WriteString("    ")
		for i, c := range row {
			if i == 0 || i == len(row)-1 {
				fmt.Fprintf(&b, "%-*s", width[i], c)
			} else {
				fmt.Fprintf(&b, "%*s", width[i], c)
			}
			if i < len(row)-1 {
				b.WriteString("  ")
			}
		}
		b.WriteString("\n")
		if n == 0 {
			b.WriteString("    " + strings.Repeat("-", sum(width)+2*(len(width)-1)) + "\n")
		}
	}
	return b.String()
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

type gasBaselineMatcher struct {
	path    string
	tol     *Tolerance
	rows    []GasRow
	used    Tolerance
	updated bool
}

// MatchGasBaseline succeeds when measurements (a map[string]uint64 of
// whole-transaction gas by name) equal the baseline file at path within a
// tolerance: the argument if given, else $AFR_GAS_TOLERANCE, else 0. The
// failure message is a table of baseline, measured, delta and status per
// measurement. With AFR_GAS_UPDATE=1 it writes the measurements to path
// instead and succeeds: the one way to move the baseline on purpose (make
// gas-baseline).
func MatchGasBaseline(path string, tol ...Tolerance) gtypes.GomegaMatcher {
	m := &gasBaselineMatcher{path: path}
	if len(tol) > 0 {
		m.tol = &tol[0]
	}
	return m
}

func (m *gasBaselineMatcher) Match(actual any) (bool, error) {
	measured, ok := actual.(map[string]uint64)
	if !ok {
		return false, fmt.Errorf("MatchGasBaseline expects a map[string]uint64 of gas by measurement, got %T", actual)
	}
	if os.Getenv(EnvGasUpdate) == "1" {
		m.updated = true
		return true, WriteGasBaseline(m.path, "whole-transaction gas measured by specs/gas; update with make gas-baseline", measured)
	}
	switch {
	case m.tol != nil:
		m.used = *m.tol
	case os.Getenv(EnvGasTolerance) != "":
		t, err := ParseTolerance(os.Getenv(EnvGasTolerance))
		if err != nil {
			return false, err
		}
		m.used = t
	}
	base, err := ReadGasBaseline(m.path)
	if err != nil {
		return false, fmt.Errorf("%w (hint: create it with make gas-baseline)", err)
	}
	var failed bool
	m.rows, failed = CompareGas(base.Gas, measured, m.used)
	return !failed, nil
}

func (m *gasBaselineMatcher) FailureMessage(any) string {
	return fmt.Sprintf("Gas differs from the baseline %s beyond the tolerance (%s):\n%s"+
		"  hint: if the change is intended, run `make gas-baseline` and commit %s with it, saying why",
		m.path, m.used, GasTable(m.rows), m.path)
}

func (m *gasBaselineMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("Expected gas to differ from the baseline %s, but every measurement is within %s:\n%s", m.path, m.used, GasTable(m.rows))
}
