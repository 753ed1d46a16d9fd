package importer

import (
	"bytes"

	"github.com/agentflightrecorder/afr/format"
)

// jsonl imports AFR event JSON, one event a line (as afr record reads it),
// each marked as imported from its line.
func (f *File) jsonl(b []byte) error {
	for n, line := range bytes.Split(b, []byte("\n")) {
		if format.BlankLine(line) {
			continue
		}
		ev, err := format.ParseEventJSON(line)
		if err != nil {
			return &StepError{File: f.Path, Unit: "line", Step: n + 1, Err: err}
		}
		if _, ok := ev.Payload.Ext[ExtKey]; ok {
			return f.fail("line", n+1, "the event already has an ext %q key (is it imported twice?)", ExtKey)
		}
		if ev.Payload.Ext == nil {
			ev.Payload.Ext = map[string]any{}
		}
		// Numbers as ParseEventJSON makes them: a line is a uint64.
		ev.Payload.Ext[ExtKey] = map[string]any{"format": f.Format, "form": "event-json", "file": f.Path, "line": uint64(n + 1)}
		if err := ev.Payload.Validate(); err != nil {
			return &StepError{File: f.Path, Unit: "line", Step: n + 1, Err: err}
		}
		f.Events = append(f.Events, Event{Event: ev, Step: n + 1})
	}
	if len(f.Events) == 0 {
		return f.fail("", -1, "no events (want AFR event JSON, one event a line)")
	}
	return nil
}
