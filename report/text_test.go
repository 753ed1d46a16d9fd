package report

import (
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
)

// A response's content and a tool's output show in the summary, the text
// when kept and the size when only its digest is.
func TestSummariseTexts(t *testing.T) {
	p := &format.Payload{
		Content:   format.NewText([]byte("Here it is.")),
		Execution: &format.Execution{Status: format.StatusOK, Output: format.NewText([]byte(strings.Repeat("x", format.MaxText+1)))},
	}
	s, _ := summarise(p)
	for _, want := range []string{`"Here it is."`, "status ok, output (65537 bytes, kept as digest 0x"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary %q lacks %q", s, want)
		}
	}
	if got := agentOf(&format.Envelope{Recorder: "rec", Group: "g", Run: "run-7"}); got != "g" {
		t.Errorf("agent of an event with a group and a run: %q, want the group (the run has its own column)", got)
	}
	if got := agentOf(&format.Envelope{Recorder: "rec", Run: "run-7"}); got != "rec" {
		t.Errorf("agent of an event with no group: %q, want the recorder", got)
	}
}
