// Package importer turns trajectories that other agent frameworks wrote —
// SWE-agent .traj files, OpenHands event streams, Claude Code session
// transcripts, Codex CLI rollouts — and files of AFR event JSON into AFR
// events, and records them into a log (`afr import`). It is
// the one conversion of a trajectory step into an event: `afr import`,
// `afr bench` (RQ1) and the tests on real trajectories all use it.
//
// An imported event was not observed by AFR when it happened: it is what
// another program wrote down afterwards. Every imported event says so in
// its payload's ext key "import" (docs/SPEC.md, "Imported events"), with
// the format, the source file and the index of the step it came from, and
// that step as written.
//
// A file is converted whole before anything of it is recorded: a malformed
// file (truncated JSON, the wrong top-level shape, a form this package does
// not know) is refused with a *StepError naming the file and the step, and
// records nothing, so the log keeps every event of the files before it.
package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
	"github.com/agentflightrecorder/afr/recorder"
)

// ExtKey is the payload ext key that marks an event as imported.
const ExtKey = "import"

// Formats are the formats Read knows, by the name `afr import` takes.
var Formats = []string{"swe-agent", "openhands", "claude-code", "codex", "jsonl"}

// Categories are the paper's categories of an agent's actions (RQ1:
// shell, file edits, file reads), and other for the rest.
var Categories = []string{"shell", "edit", "read", "other"}

// Event is one event of an imported file.
type Event struct {
	Event format.Event
	// Step is the index of what the event came from in its file: the
	// trajectory step, history message or stream event (from 0), or the
	// line (from 1) of a JSON Lines file (claude-code, codex, jsonl).
	Step int
	// Category is one of Categories for an action, "" for an event that ran
	// none (an observation, a message).
	Category string
	// Causes are indices into the file's Events of the events this one
	// answers; Record turns them into the payload's context parents.
	Causes []int
}

// File is an imported file, converted whole.
type File struct {
	Path   string
	Format string
	// Run is the run every event of the file is tagged with (the record's
	// run): the task or instance id the file names, else the file's name
	// without its extension (the session id for claude-code and codex); ""
	// for jsonl, whose events carry their own.
	Run    string
	Events []Event
}

// StepError is a malformed file: what is wrong with which step of it.
type StepError struct {
	File string
	Unit string // "step", "message", "event" or "line"
	Step int    // -1: the file as a whole
	Err  error
}

func (e *StepError) Error() string {
	if e.Step < 0 {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s: %s %d: %v", e.File, e.Unit, e.Step, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// ShapeError is the Err of a *StepError for a file whose top level is not
// what its format holds: Shape is what it is ("an object", "an array", …),
// Want what the format needs, and Other, when set, the format of Formats
// whose files have that shape (the file was likely given the wrong one).
type ShapeError struct {
	Shape string
	Want  string
	Other string
}

func (e *ShapeError) Error() string {
	return fmt.Sprintf("the top level is %s, want %s", e.Shape, e.Want)
}

// Read converts the file at path, in the named format (one of Formats),
// into events. Nothing is recorded.
func Read(formatName, path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path, Format: formatName}
	switch formatName {
	case "swe-agent":
		err = f.sweAgent(b)
	case "openhands":
		err = f.openHands(b)
	case "claude-code":
		err = f.claudeCode(b)
	case "codex":
		err = f.codex(b)
	case "jsonl":
		err = f.jsonl(b)
	default:
		return nil, fmt.Errorf("unknown format %q (want one of %s)", formatName, strings.Join(Formats, ", "))
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Record appends the file's events to w in order, each event's causes
// becoming its context parents (the sequence numbers w gave them). It
// returns the receipts of the events recorded, all of them unless err is
// set.
func (f *File) Record(ctx context.Context, w recorder.EventWriter) ([]recorder.Receipt, error) {
	rcs := make([]recorder.Receipt, 0, len(f.Events))
	for _, e := range f.Events {
		ev := e.Event
		if len(e.Causes) > 0 {
			c := format.ContextProvenance{}
			if ev.Payload.Context != nil {
				c = *ev.Payload.Context
			}
			for _, i := range e.Causes {
				c.Parents = append(c.Parents, rcs[i].Seq)
			}
			ev.Payload.Context = &c
		}
		rc, err := w.Record(ctx, ev)
		if err != nil {
			return rcs, &StepError{File: f.Path, Unit: f.unit(), Step: e.Step, Err: err}
		}
		rcs = append(rcs, rc)
	}
	return rcs, nil
}

// ByCategory counts the file's actions by category.
func (f *File) ByCategory() map[string]int {
	n := map[string]int{}
	for _, e := range f.Events {
		if e.Category != "" {
			n[e.Category]++
		}
	}
	return n
}

// unit is what a file of f's format is made of: lines for the JSON Lines
// formats, else steps.
func (f *File) unit() string {
	switch f.Format {
	case "jsonl", "claude-code", "codex":
		return "line"
	}
	return "step"
}

// item is one event of a file before it is converted: what add makes an
// Event of.
type item struct {
	step int             // the index of the step, message or stream event, or the line
	form string          // the import mark's form
	raw  json.RawMessage // the step as written
	// tool is the event's tool, one of the vocabulary's (tools.go); source
	// the name the file gave it ("" for none), kept in ext.import.tool.
	tool, source string
	kind         format.Kind
	// payload holds the payload's fields as event JSON (docs/SPEC.md,
	// "Event JSON"), ext aside.
	payload map[string]any
	// eventTime is when the source says the event happened (Unix ns, 0
	// for not said).
	eventTime int64
	// mark holds more keys of the import mark.
	mark map[string]any
	// causes index f.Events: the events this one answers.
	causes []int
}

// add converts one item into an event of the file's run: tool and kind,
// the payload's fields and the import mark with the step as written. An
// action's category is its tool's.
func (f *File) add(it item) error {
	mark := map[string]any{"format": f.Format, "form": it.form, "file": f.Path, f.unit(): it.step, "raw": it.raw}
	for k, v := range it.mark {
		mark[k] = v
	}
	if it.source != "" {
		mark["tool"] = it.source
	}
	category := ""
	if it.kind == format.KindToolCall {
		category = categoryOfTool[it.tool]
		mark["category"] = category
	}
	payload := map[string]any{}
	for k, v := range it.payload {
		payload[k] = v
	}
	payload["ext"] = map[string]any{ExtKey: mark}
	ev := map[string]any{"tool": it.tool, "kind": it.kind.String(), "run": f.Run, "payload": payload}
	if it.eventTime != 0 {
		ev["event_time"] = it.eventTime
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return &StepError{File: f.Path, Unit: f.unit(), Step: it.step, Err: err}
	}
	e, err := format.ParseEventJSON(b)
	if err != nil {
		return &StepError{File: f.Path, Unit: f.unit(), Step: it.step, Err: err}
	}
	f.Events = append(f.Events, Event{Event: e, Step: it.step, Category: category, Causes: it.causes})
	return nil
}

// isoTime is the Unix time of a timestamp in ISO 8601, in UTC when it
// names no zone (as OpenHands writes it); 0 for none.
func isoTime(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixNano(), nil
		}
	}
	return 0, fmt.Errorf("timestamp %q is not ISO 8601 (2025-01-27T23:16:50.239610)", s)
}

// outcome is an action's execution as event JSON: what the tool returned,
// its exit code when the source gives one, failed for a non-zero exit code
// or when the source says the action failed (errText, when not empty, is
// why), and the action's and its result's times as start and end when the
// source gives both.
func outcome(output string, exitCode *int64, failed bool, errText string, start, end int64) map[string]any {
	exec := map[string]any{"status": "ok", "output": text(output)}
	if exitCode != nil {
		exec["exit_code"] = *exitCode
		failed = failed || *exitCode != 0
	}
	if failed {
		exec["status"] = "failed"
	}
	if errText != "" {
		exec["error"] = errText
	}
	if start != 0 && end != 0 {
		exec["start"], exec["end"] = start, end
	}
	return exec
}

// text is a text map of event JSON (execution.output, content): the
// parser sets its size and digests it when it is too long to keep.
func text(s string) map[string]any { return map[string]any{"text": s} }

// fail is a StepError of f.
func (f *File) fail(unit string, step int, format string, args ...any) error {
	return &StepError{File: f.Path, Unit: unit, Step: step, Err: fmt.Errorf(format, args...)}
}

// jsonShape names the JSON type of b's top-level value, for errors.
func jsonShape(b []byte) string {
	s := strings.TrimSpace(string(b))
	switch {
	case s == "":
		return "nothing"
	case s[0] == '{':
		return "an object"
	case s[0] == '[':
		return "an array"
	case s[0] == '"':
		return "a string"
	default:
		return "a " + strings.Fields(s)[0]
	}
}

// syntaxError explains why a whole file is not JSON.
func (f *File) syntaxError(b []byte, err error) error {
	var se *strictjson.SyntaxError
	if errors.As(err, &se) {
		line := strings.Count(string(b[:min(int(se.ByteOffset), len(b))]), "\n") + 1
		return f.fail("", -1, "not valid JSON at line %d (byte %d): %v (a truncated or damaged file?)", line, se.ByteOffset, se)
	}
	return f.fail("", -1, "%v", err)
}

// runOfFile is the run of a file that names none: its name without the
// extension (SWE-agent names a trajectory after its instance).
func runOfFile(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}
