package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Config configures a run.
type Config struct {
	// Quick runs smaller logs and fewer seeds (see Sizes).
	Quick bool
	// Seeds overrides the number of seeds of Table II, of clean logs of
	// Table IV and of repetitions of RQ1's timing (0: Sizes' default).
	Seeds int
	// Backend is the chain of Table III and RQ4: "embedded" (default) or
	// "anvil".
	Backend string
	// Traces is the trajectories' directory for RQ1 ("" lets
	// internal/traces locate it).
	Traces string
	// Out is the output folder (created if absent).
	Out string
	// Command is the command line and Version the program's version (with
	// its commit when known), for the report.
	Command, Version string
	// Progress receives progress (nil: none).
	Progress *Progress
}

// Check says what is wrong with the configuration, if anything.
func (c Config) Check() error {
	if c.Backend != "" && c.Backend != "embedded" && c.Backend != "anvil" {
		return fmt.Errorf("unknown backend %q (want embedded or anvil)", c.Backend)
	}
	if c.Seeds < 0 {
		return fmt.Errorf("%d seeds: want a positive number", c.Seeds)
	}
	if c.Out == "" {
		return errors.New("no output folder")
	}
	return nil
}

// ParseOnly parses a comma-separated list of table ids.
func ParseOnly(s string) ([]string, error) {
	var ids []string
	for _, id := range strings.Split(s, ",") {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		if !slices.Contains(IDs(), id) {
			return nil, fmt.Errorf("unknown table %q (want some of %s)", id, strings.Join(IDs(), ","))
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// Sizes are the sizes of a run.
type Sizes struct {
	LadderN      []int // Table II: events per log
	Seeds        int   // Table II seeds, Table IV clean logs, RQ1 repetitions
	TamperN      int   // Table IV: events in the attacked log
	AnchorEpochs int   // Table III: epochs anchored
	BatchLogs    []int // Table III: logs per aggregate batch
}

// Sizes returns the sizes of the run: the paper's (N = 100, 1K, 10K; 30
// seeds; a 10,000-event log for Table IV), or with Quick smaller ones.
func (c Config) Sizes() Sizes {
	s := Sizes{LadderN: []int{100, 1_000, 10_000}, Seeds: 30, TamperN: 10_000, AnchorEpochs: 10, BatchLogs: []int{1, 10, 100, 1_000}}
	if c.Quick {
		s = Sizes{LadderN: []int{100, 1_000}, Seeds: 3, TamperN: 1_000, AnchorEpochs: 4, BatchLogs: []int{1, 10, 100}}
	}
	if c.Seeds > 0 {
		s.Seeds = c.Seeds
	}
	return s
}

// A table of the evaluation: what it measured, in sections of rows, with
// its data for JSON and the plots it drew.
type Table struct {
	ID    string `json:"id"` // table2, table3, table4, rq1, rq4: file names and --only
	Title string `json:"title"`
	// About says what the table measures and how, in one paragraph.
	About    string    `json:"about"`
	Sections []Section `json:"sections"`
	// Notes follow the sections: assumptions, the paper's figures that
	// have no row of ours, where the details are.
	Notes []string `json:"notes,omitempty"`
	// Skipped says why the table could not be measured (its input is
	// absent); it then has no sections.
	Skipped string `json:"skipped,omitempty"`
	// Data is the measurement, for JSON.
	Data any `json:"data,omitempty"`
	// Plots are the plots' file names without extension: each was written
	// as .png and .svg.
	Plots   []string `json:"plots,omitempty"`
	Seconds float64  `json:"seconds"`
}

// Section is one grid of a table.
type Section struct {
	Title  string     `json:"title,omitempty"`
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
	// FilesOnly sections are written to the Markdown and JSON files but not
	// printed (too wide for a terminal); a note says where they are.
	FilesOnly bool `json:"files_only,omitempty"`
}

// step is one table of the evaluation.
type step struct {
	id  string
	run func(ctx context.Context, r *run) (*Table, error)
}

var steps = []step{
	{"table2", table2}, {"table3", table3}, {"table4", table4}, {"rq1", rq1}, {"rq4", rq4},
}

// IDs are the tables' ids, in the order they run.
func IDs() []string {
	ids := make([]string, len(steps))
	for i, s := range steps {
		ids[i] = s.id
	}
	return ids
}

// run is the state of one run the tables share.
type run struct {
	cfg   Config
	sizes Sizes
	tmp   string // scratch space, removed at the end
	table string // the table running, for progress
}

// progress reports step done of total of the running table.
func (r *run) progress(done, total int, format string, args ...any) {
	r.cfg.Progress.Step(r.table, done, total, fmt.Sprintf(format, args...))
}

// Report is a whole run.
type Report struct {
	Command string    `json:"command"`
	Version string    `json:"version"`
	Out     string    `json:"out"` // the output folder
	Machine Machine   `json:"machine"`
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	Quick   bool      `json:"quick"`
	Sizes   Sizes     `json:"sizes"`
	Tables  []*Table  `json:"tables"`
}

// Run runs the tables named in only (all when empty), in the order of
// IDs. Each table is printed to stdout as it is done and written to the
// output folder (ID.md, ID.json and its plots); the whole run to
// README.md there. A table that fails is reported and the others still
// run; the error names every table that failed.
func Run(ctx context.Context, cfg Config, only []string, stdout io.Writer) (*Report, error) {
	if cfg.Backend == "" {
		cfg.Backend = "embedded"
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, id := range only {
		if !slices.Contains(IDs(), id) {
			return nil, fmt.Errorf("unknown table %q (want some of %s)", id, strings.Join(IDs(), ","))
		}
		want[id] = true
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "afr-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	r := &run{cfg: cfg, sizes: cfg.Sizes(), tmp: tmp}
	rep := &Report{Command: cfg.Command, Version: cfg.Version, Out: cfg.Out, Machine: ThisMachine(), Started: time.Now().UTC(), Quick: cfg.Quick, Sizes: r.sizes}
	var failed []string
	for _, s := range steps {
		if len(want) > 0 && !want[s.id] {
			continue
		}
		r.table = s.id
		t0 := time.Now()
		t, err := s.run(ctx, r)
		cfg.Progress.Clear()
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", s.id, err))
			fmt.Fprintf(stdout, "%s: FAILED: %v\n\n", s.id, err)
			continue
		}
		t.Seconds = time.Since(t0).Seconds()
		t.Text(stdout)
		if err := t.writeFiles(cfg.Out); err != nil {
			return rep, err
		}
		rep.Tables = append(rep.Tables, t)
	}
	rep.Seconds = time.Since(rep.Started).Seconds()
	if err := os.WriteFile(filepath.Join(cfg.Out, "README.md"), rep.Markdown("."), 0o644); err != nil {
		return rep, err
	}
	if len(failed) > 0 {
		return rep, errors.New(strings.Join(failed, "; "))
	}
	return rep, nil
}

// Text prints the table for a terminal.
func (t *Table) Text(w io.Writer) {
	fmt.Fprintf(w, "%s\n%s\n", t.Title, strings.Repeat("=", len([]rune(t.Title))))
	fmt.Fprintf(w, "%s\n\n", wrap(t.About, 100))
	if t.Skipped != "" {
		fmt.Fprintf(w, "Not measured: %s\n\n", t.Skipped)
		return
	}
	for _, s := range t.Sections {
		if s.FilesOnly {
			continue
		}
		if s.Title != "" {
			fmt.Fprintf(w, "%s\n", s.Title)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\t\n", strings.Join(s.Header, "\t"))
		for _, row := range s.Rows {
			fmt.Fprintf(tw, "%s\t\n", strings.Join(row, "\t"))
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "%s\n", wrap("- "+n, 100))
	}
	if len(t.Notes) > 0 {
		fmt.Fprintln(w)
	}
}

// wrap breaks text into lines of at most width runes, at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		if i > 0 {
			if n+1+len([]rune(word)) > width {
				b.WriteString("\n  ")
				n = 2
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(word)
		n += len([]rune(word))
	}
	return b.String()
}

// markdown writes the table as Markdown, with headings at level, and its
// plots as images relative to plotDir ("" for none).
func (t *Table) markdown(b *strings.Builder, level int, plotDir string) {
	h := strings.Repeat("#", level)
	fmt.Fprintf(b, "%s %s\n\n%s\n\n", h, t.Title, t.About)
	if t.Skipped != "" {
		fmt.Fprintf(b, "**Not measured:** %s\n\n", mdEscape(t.Skipped))
		return
	}
	for _, s := range t.Sections {
		if s.Title != "" {
			fmt.Fprintf(b, "%s# %s\n\n", h, s.Title)
		}
		fmt.Fprintf(b, "| %s |\n|", strings.Join(mdCells(s.Header), " | "))
		for range s.Header {
			b.WriteString("---|")
		}
		b.WriteByte('\n')
		for _, row := range s.Rows {
			fmt.Fprintf(b, "| %s |\n", strings.Join(mdCells(row), " | "))
		}
		b.WriteByte('\n')
	}
	for _, n := range t.Notes {
		fmt.Fprintf(b, "- %s\n", n)
	}
	if len(t.Notes) > 0 {
		b.WriteByte('\n')
	}
	if plotDir != "" {
		for _, p := range t.Plots {
			fmt.Fprintf(b, "![%s](%s)\n\n", p, filepath.ToSlash(filepath.Join(plotDir, p+".svg")))
		}
	}
	fmt.Fprintf(b, "_Measured in %.1f s._\n\n", t.Seconds)
}

func mdCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = mdEscape(c)
	}
	return out
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// writeFiles writes ID.md and ID.json into dir (the plots are written by
// the table itself).
func (t *Table) writeFiles(dir string) error {
	var b strings.Builder
	t.markdown(&b, 1, ".")
	if err := os.WriteFile(filepath.Join(dir, t.ID+".md"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	j, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, t.ID+".json"), append(j, '\n'), 0o644)
}

// Markdown renders the whole run: the command, the machine, the date and
// every table. Images link to the plots in plotDir, the output folder
// relative to where the Markdown is written ("." for README.md in it; ""
// for no images).
func (rep *Report) Markdown(plotDir string) []byte {
	var b strings.Builder
	mode := "full: the paper's sizes"
	if rep.Quick {
		mode = "quick: smaller logs, fewer seeds"
	}
	fmt.Fprintf(&b, "# The paper's evaluation, regenerated\n\n")
	fmt.Fprintf(&b, "Generated by `%s` (%s; afr %s) on %s, in %.0f s. Every figure below was measured in that run; ", rep.Command, mode, rep.Version, rep.Started.Format("2006-01-02 15:04 UTC"), rep.Seconds)
	fmt.Fprintf(&b, "the paper's figures stand beside ours. Timings come from the machine below, shared with other work while it ran: compare rungs within a run (×baseline), not across runs.\n\n")
	m := rep.Machine
	fmt.Fprintf(&b, "| machine | |\n|---|---|\n| CPU | %s |\n| cores | %d |\n| OS/arch | %s/%s |\n| Go | %s |\n| load average at start | %s |\n\n",
		mdEscape(m.CPU), m.Cores, m.OS, m.Arch, m.Go, m.Load)
	fmt.Fprintf(&b, "Sizes: Table II N = %s, %d seeds; Table III %d epochs anchored per log, batches of %s logs; Table IV a %d-event log, %d clean logs; RQ1 %d repetitions.\n\n",
		joinInts(rep.Sizes.LadderN), rep.Sizes.Seeds, rep.Sizes.AnchorEpochs, joinInts(rep.Sizes.BatchLogs), rep.Sizes.TamperN, rep.Sizes.Seeds, rep.Sizes.Seeds)
	if plotDir == "" {
		fmt.Fprintf(&b, "The plots of this run (PNG and SVG) were written beside its tables, in `%s/`.\n\n", filepath.ToSlash(rep.Out))
	}
	for _, t := range rep.Tables {
		t.markdown(&b, 2, plotDir)
	}
	return []byte(b.String())
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%d", x)
	}
	return strings.Join(s, "/")
}

// Machine describes where a run ran.
type Machine struct {
	CPU   string `json:"cpu"`
	Cores int    `json:"cores"`
	OS    string `json:"os"`
	Arch  string `json:"arch"`
	Go    string `json:"go"`
	Load  string `json:"load_average"`
}

// ThisMachine describes this machine: the CPU model and load average as
// Linux reports them (/proc), "unknown" elsewhere.
func ThisMachine() Machine {
	m := Machine{CPU: "unknown", Cores: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH, Go: runtime.Version(), Load: "unknown"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			m.Load = strings.Join(f[:3], " ")
		}
	}
	return m
}
