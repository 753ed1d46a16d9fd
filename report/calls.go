package report

import (
	"fmt"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/importer"
	"github.com/agentflightrecorder/afr/verifier"
)

// callData is one tool call of the timeline: the events that record it —
// its intent, and the policy decision, approval and outcome that follow —
// paired into one row (the page's data holds them as columns: rowsData).
type callData struct {
	Events   []uint64 // seqs, the intent first
	Status   string   // the outcome's status, a denial, or "no outcome recorded"
	Start    int64    // Unix nanoseconds: the outcome's start, else its first event's time (when)
	Duration int64    // milliseconds; -1 when nothing says
	Output   string   // an excerpt of the outcome's output, or its error
}

// noOutcome is the status of a call whose intent has no recorded outcome.
const noOutcome = "no outcome recorded"

// callsOf pairs events (in seq order) into calls. An event with an intent
// opens a call; a policy decision, an approval or an outcome (an
// execution) joins the call it names: the call of its first causal parent
// (context.parents) that belongs to one, else the latest call of the same
// agent with the same MCP request id (ext "mcp.request_id"). An event that
// holds both an intent and its execution is a whole call, and a call takes
// no event after its outcome. It returns the
// calls and, by seq, the index of each paired event's call.
func callsOf(events []*verifier.Event) ([]callData, map[uint64]int) {
	var calls []callData
	var outcomes []*format.Execution
	member := map[uint64]int{}
	byRequest := map[string]int{}
	for _, ev := range events {
		p := ev.Payload
		if p == nil {
			continue
		}
		key := requestKey(ev)
		i, ok := -1, false
		if p.Intent != nil {
			i, ok = len(calls), true
			calls = append(calls, callData{})
			outcomes = append(outcomes, nil)
			if key != "" {
				byRequest[key] = i
			}
		} else if p.Policy != nil || p.Approval != nil || p.Execution != nil {
			i, ok = callOf(ev, member, byRequest, key)
			// A call ends with its outcome: a later execution it caused (an
			// on-chain transaction a tool call sent, say) is an event of its own.
			ok = ok && outcomes[i] == nil
		}
		if !ok {
			continue
		}
		member[ev.Seq] = i
		c := &calls[i]
		c.Events = append(c.Events, ev.Seq)
		if p.Execution != nil && outcomes[i] == nil {
			outcomes[i] = p.Execution
		}
	}
	bySeq := make(map[uint64]*verifier.Event, len(member))
	for _, ev := range events {
		if _, ok := member[ev.Seq]; ok {
			bySeq[ev.Seq] = ev
		}
	}
	for i := range calls {
		c := &calls[i]
		c.Status, c.Start, c.Duration = outcome(c.Events, outcomes[i], bySeq)
		calls[i].Output = excerpt(outcomes[i])
	}
	return calls, member
}

// callOf finds the call an event joins, by its causal parents, else by
// its request id.
func callOf(ev *verifier.Event, member map[uint64]int, byRequest map[string]int, key string) (int, bool) {
	if c := ev.Payload.Context; c != nil {
		for _, parent := range c.Parents {
			if i, ok := member[parent]; ok {
				return i, true
			}
		}
	}
	i, ok := byRequest[key]
	return i, ok && key != ""
}

// requestKey names an event's MCP request within its agent, or "" when it
// has no request id.
func requestKey(ev *verifier.Event) string {
	id, ok := ev.Payload.Ext["mcp.request_id"]
	if !ok || id == nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%s\x00%v", agentOf(&ev.Envelope), ev.Envelope.Run, id)
}

// excerpt is the start of an outcome's output (or its size and digest
// when only they were kept), else its error.
func excerpt(x *format.Execution) string {
	switch {
	case x == nil:
		return ""
	case x.Output != nil:
		return truncate(textOf(x.Output), 120)
	}
	return truncate(x.Error, 120)
}

func imported(p *format.Payload) bool {
	_, ok := p.Ext[importer.ExtKey]
	return ok
}

// outcome is a call's status, start and duration: the outcome's status
// and its execution time (start to end), else the time from its first
// event to its last; a call denied by its policy or approval with no
// outcome says so.
func outcome(seqs []uint64, x *format.Execution, bySeq map[uint64]*verifier.Event) (string, int64, int64) {
	first, last := &bySeq[seqs[0]].Envelope, &bySeq[seqs[len(seqs)-1]].Envelope
	start, ms := when(first), int64(-1)
	if len(seqs) > 1 {
		ms = (when(last) - start) / 1e6
	}
	if x != nil {
		if x.Start != 0 && x.End >= x.Start {
			start, ms = x.Start, (x.End-x.Start)/1e6
		}
		return x.Status.String(), start, ms
	}
	for _, s := range seqs {
		p := bySeq[s].Payload
		if p.Policy != nil && p.Policy.Decision == format.DecisionDeny {
			return "denied by policy", start, ms
		}
		if p.Approval != nil && p.Approval.Decision == format.DecisionDeny {
			return "denied at approval", start, ms
		}
	}
	return noOutcome, start, ms
}
