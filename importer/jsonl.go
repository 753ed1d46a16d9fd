package importer

import (
	"bytes"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// jsonLine is one line of a JSON Lines file that is not blank: its number
// (from 1) and its bytes.
type jsonLine struct {
	n    int
	text []byte
}

// jsonLines splits a JSON Lines file into its lines that are not blank. A
// file that is one JSON array, or one object spread over several lines, is
// refused with a *ShapeError naming the trajectory format of that shape:
// want says what the format holds.
func (f *File) jsonLines(b []byte, want string) ([]jsonLine, error) {
	var lines []jsonLine
	for i, line := range bytes.Split(b, []byte("\n")) {
		if !format.BlankLine(line) {
			lines = append(lines, jsonLine{n: i + 1, text: line})
		}
	}
	if len(lines) == 0 {
		return nil, f.fail("", -1, "no lines (want %s)", want)
	}
	shape := jsonShape(b)
	if shape == "an array" || shape == "an object" && len(lines) > 1 && strictjson.Check(b) == nil {
		e := &ShapeError{Shape: shape + " spread over lines", Want: want, Other: "swe-agent"}
		if shape == "an array" {
			e.Shape, e.Other = shape, "openhands"
		}
		return nil, &StepError{File: f.Path, Step: -1, Err: e}
	}
	return lines, nil
}

// jsonl imports AFR event JSON, one event a line (as afr record reads it),
// each marked as imported from its line.
func (f *File) jsonl(b []byte) error {
	lines, err := f.jsonLines(b, "AFR event JSON, one event a line")
	if err != nil {
		return err
	}
	for _, l := range lines {
		ev, err := format.ParseEventJSON(l.text)
		if err != nil {
			return &StepError{File: f.Path, Unit: "line", Step: l.n, Err: err}
		}
		if _, ok := ev.Payload.Ext[ExtKey]; ok {
			return f.fail("line", l.n, "the event already has an ext %q key (is it imported twice?)", ExtKey)
		}
		if ev.Payload.Ext == nil {
			ev.Payload.Ext = map[string]any{}
		}
		// Numbers as ParseEventJSON makes them: a line is a uint64.
		ev.Payload.Ext[ExtKey] = map[string]any{"format": f.Format, "form": "event-json", "file": f.Path, "line": uint64(l.n)}
		if err := ev.Payload.Validate(); err != nil {
			return &StepError{File: f.Path, Unit: "line", Step: l.n, Err: err}
		}
		f.Events = append(f.Events, Event{Event: ev, Step: l.n})
	}
	return nil
}
