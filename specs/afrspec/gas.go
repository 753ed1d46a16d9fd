package afrspec

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/agentflightrecorder/afr/internal/show"
	gtypes "github.com/onsi/gomega/types"
)

// Gas baseline environment variables.
const (
	// EnvGasUpdate, when "1", makes MatchGasBaseline rewrite the baseline
	// with the measurements instead of comparing: run the suite that measures
	// as `AFR_GAS_UPDATE=1 go test ./your/pkg` (or `ginkgo`) from the module
	// root. Any value but "", "0" and "1" is an error.
	EnvGasUpdate = "AFR_GAS_UPDATE"
	// EnvGasTolerance overrides the tolerance: gas units ("50") or a
	// percentage ("0.5%"). Default 0: any change fails.
	EnvGasTolerance = "AFR_GAS_TOLERANCE"
)

// GasBaselineFormat names the baseline file format.
const GasBaselineFormat = "afr-gas-baseline"

// GasBaseline is the committed file of expected gas figures (AFR's own is
// fixtures/gas/baseline.json): whole-transaction gas by measurement name.
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
	return show.Commas(t.Gas) + " gas"
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
			old = show.Commas(r.Old)
		}
		if r.New > 0 {
			cur = show.Commas(r.New)
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
			delta = sign + show.Commas(uint64(ad))
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
	path string
	tol  *Tolerance
	rows []GasRow
	used Tolerance
}

// MatchGasBaseline succeeds when measurements (a map[string]uint64 of
// whole-transaction gas by name) equal the baseline file at path within a
// tolerance: the argument if given, else $AFR_GAS_TOLERANCE, else 0. The
// failure message is a table of baseline, measured, delta and status per
// measurement, naming the file and the command that rewrites it. With
// AFR_GAS_UPDATE=1 it writes the measurements to path instead and succeeds:
// the one way to move the baseline on purpose, and the way to create it.
// A relative path is relative to the package directory, where go test and
// ginkgo run a package's tests.
func MatchGasBaseline(path string, tol ...Tolerance) gtypes.GomegaMatcher {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs // messages name the file wherever the test runs
	}
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
	switch v := os.Getenv(EnvGasUpdate); v {
	case "1":
		note := "whole-transaction gas by measurement (afrspec.MatchGasBaseline); rewrite with `" + gasUpdateCommand() + "` from the module root"
		if err := WriteGasBaseline(m.path, note, measured); err != nil {
			return false, fmt.Errorf("afrspec: %s=1: writing the gas baseline: %w", EnvGasUpdate, err)
		}
		return true, nil
	case "", "0":
	default:
		return false, fmt.Errorf("afrspec: %s=%q: set it to 1 to rewrite the gas baseline %s, or leave it unset to compare", EnvGasUpdate, v, m.path)
	}
	switch {
	case m.tol != nil:
		m.used = *m.tol
	case os.Getenv(EnvGasTolerance) != "":
		t, err := ParseTolerance(os.Getenv(EnvGasTolerance))
		if err != nil {
			return false, fmt.Errorf("%w (from $%s)", err, EnvGasTolerance)
		}
		m.used = t
	}
	base, err := ReadGasBaseline(m.path)
	if errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("afrspec: no gas baseline at %s: %w (hint: create it with `%s` and commit it)", m.path, err, m.updateHint())
	}
	if err != nil {
		return false, fmt.Errorf("%w (hint: fix the file, or rewrite it with `%s`)", err, m.updateHint())
	}
	var failed bool
	m.rows, failed = CompareGas(base.Gas, measured, m.used)
	return !failed, nil
}

func (m *gasBaselineMatcher) FailureMessage(any) string {
	return fmt.Sprintf("Gas differs from the baseline %s beyond the tolerance (%s):\n%s"+
		"  hint: if the change is intended, rewrite the baseline with\n\n      %s\n\n"+
		"  (ginkgo works in place of go test) and commit %s with the change, saying why;\n"+
		"  to allow drift, set %s (gas, e.g. 50, or a percentage, e.g. 0.5%%)",
		m.path, m.used, GasTable(m.rows), m.updateHint(), m.path, EnvGasTolerance)
}

// updateHint is the shell command that rewrites the baseline: the update
// command, run from the module root.
func (m *gasBaselineMatcher) updateHint() string {
	if root := moduleOf(); root != "" {
		return "cd " + root + " && " + gasUpdateCommand()
	}
	return gasUpdateCommand()
}

// gasUpdateCommand is the go test command, from the module root, that runs
// the package under test with AFR_GAS_UPDATE=1. go test and ginkgo run a
// package's tests in its directory, so the working directory relative to the
// root of its module names the package.
func gasUpdateCommand() string {
	pkg := "./your/package"
	if root := moduleOf(); root != "" {
		wd, _ := os.Getwd()
		if rel, err := filepath.Rel(root, wd); err == nil {
			pkg = "./" + filepath.ToSlash(rel)
			if rel == "." {
				pkg = "."
			}
		}
	}
	return EnvGasUpdate + "=1 go test " + pkg
}

// moduleOf returns the nearest directory at or above the working directory
// that holds a go.mod, or "".
func moduleOf() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func (m *gasBaselineMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("Expected gas to differ from the baseline %s, but every measurement is within %s:\n%s", m.path, m.used, GasTable(m.rows))
}
