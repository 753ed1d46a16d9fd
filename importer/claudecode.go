package importer

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// A Claude Code session transcript (~/.claude/projects/<project>/
// <session-id>.jsonl) is JSON Lines, one entry a line. An entry of type
// user, assistant or system has a uuid, the parentUuid of the entry it
// follows (null for the first), the sessionId, a timestamp and the cwd; a
// user or assistant entry holds a message whose content is a string or a
// list of blocks: text, thinking, tool_use (id, name, input) from the
// model, tool_result (tool_use_id, content, is_error) answering a
// tool_use. The user entry of a tool result also holds toolUseResult, the
// tool's own structured result. Other entries (summary, a session's
// title; file-history-snapshot; queue-operation; …) record no step of the
// conversation and are skipped.

type ccEntry struct {
	Type       string          `json:"type"`
	UUID       string          `json:"uuid"`
	ParentUUID *string         `json:"parentUuid"`
	SessionID  string          `json:"sessionId"`
	Timestamp  string          `json:"timestamp"`
	Subtype    string          `json:"subtype"`
	Content    json.RawMessage `json:"content"` // a system entry's text
	Message    *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	// Payload is set on a Codex rollout line, given to the wrong importer.
	Payload json.RawMessage `json:"payload"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// ccLine is an entry of the transcript with its blocks and time.
type ccLine struct {
	jsonLine
	e      ccEntry
	blocks []ccBlock // a string content is one text block
	time   int64
}

// ccResult is where the tool_result answering a tool_use is.
type ccResult struct {
	line  *ccLine
	block ccBlock
}

// ccWant is what a Claude Code transcript holds, for errors.
const ccWant = "a Claude Code session transcript (JSON Lines, one entry a line)"

func (f *File) claudeCode(b []byte) error {
	raw, err := f.jsonLines(b, ccWant)
	if err != nil {
		return err
	}
	lines := make([]ccLine, len(raw))
	calls := map[string]bool{}       // the tool_use ids seen
	answers := map[string]ccResult{} // a tool_use id → the result answering it
	seen := map[string]bool{}        // the entries' uuids
	for i := range raw {
		l := &lines[i]
		l.jsonLine = raw[i]
		if err := f.ccParse(l); err != nil {
			return err
		}
		if l.e.UUID != "" && seen[l.e.UUID] {
			l.blocks = nil // an entry written again (a resumed session) is read once
			continue
		}
		seen[l.e.UUID] = true
		for _, bl := range l.blocks {
			switch bl.Type {
			case "tool_use":
				if bl.ID == "" || calls[bl.ID] {
					return f.fail("line", l.n, "a tool_use with no id, or the id %q of an earlier one", bl.ID)
				}
				calls[bl.ID] = true
			case "tool_result":
				if _, done := answers[bl.ToolUseID]; calls[bl.ToolUseID] && !done {
					answers[bl.ToolUseID] = ccResult{l, bl}
				}
			}
		}
		if f.Run == "" {
			f.Run = l.e.SessionID
		}
	}
	if f.Run == "" {
		f.Run = runOfFile(f.Path)
	}
	eventOf := map[string]int{}   // an entry's uuid → the index of its last event
	callEvent := map[string]int{} // a tool_use id → the index of its event
	for i := range lines {
		l := &lines[i]
		var causes []int
		if p := l.e.ParentUUID; p != nil {
			if c, ok := eventOf[*p]; ok {
				causes = []int{c}
			}
		}
		if len(causes) > 0 && l.e.UUID != "" {
			eventOf[l.e.UUID] = causes[0] // an entry without events stands for its parent
		}
		for j, bl := range l.blocks {
			if bl.Type == "tool_result" && answers[bl.ToolUseID].line == l {
				// The outcome of its call's event, which stands for the entry.
				if l.e.UUID != "" {
					eventOf[l.e.UUID] = callEvent[bl.ToolUseID]
				}
				continue
			}
			it, ok, err := f.ccItem(l, j, bl, answers)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			it.causes = causes
			if err := f.add(it); err != nil {
				return err
			}
			if bl.Type == "tool_use" {
				callEvent[bl.ID] = len(f.Events) - 1
			}
			if l.e.UUID != "" {
				eventOf[l.e.UUID] = len(f.Events) - 1
			}
		}
	}
	return nil
}

// ccParse reads one line: an entry, and the blocks of its message (or a
// system entry's text as one text block). A line that is not an entry, a
// Codex rollout line among them, is refused.
func (f *File) ccParse(l *ccLine) error {
	if err := strictjson.Unmarshal(l.text, &l.e); err != nil {
		return f.fail("line", l.n, "not a Claude Code transcript entry: %v", err)
	}
	if l.e.Type == "" {
		return f.fail("line", l.n, "no \"type\": not a Claude Code transcript entry")
	}
	if len(l.e.Payload) > 0 {
		return f.fail("line", l.n, "a line of type %q with a \"payload\": a Codex CLI rollout line (afr import codex), not a Claude Code transcript entry", l.e.Type)
	}
	switch l.e.Type {
	case "user", "assistant":
		if l.e.Message == nil {
			return f.fail("line", l.n, "a %s entry with no \"message\"", l.e.Type)
		}
		blocks, err := ccBlocks(l.e.Message.Content)
		if err != nil {
			return f.fail("line", l.n, "the message's content: %v", err)
		}
		l.blocks = blocks
	case "system":
		var s string
		if len(l.e.Content) > 0 && strictjson.Unmarshal(l.e.Content, &s) != nil {
			return f.fail("line", l.n, "a system entry whose content is %s, want a string", jsonShape(l.e.Content))
		}
		l.blocks = []ccBlock{{Type: "text", Text: s}}
	default:
		return nil
	}
	t, err := isoTime(l.e.Timestamp)
	if err != nil {
		return f.fail("line", l.n, "%v", err)
	}
	l.time = t
	return nil
}

// ccBlocks reads a message's content: a string (one text block) or a list
// of blocks.
func ccBlocks(raw json.RawMessage) ([]ccBlock, error) {
	var s string
	if strictjson.Unmarshal(raw, &s) == nil {
		return []ccBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []ccBlock
	if err := strictjson.Unmarshal(raw, &blocks); err != nil {
		return nil, err
	}
	return blocks, nil
}

// ccItem is the event of one block of an entry, and whether it is one:
// what the user or the system said is an observation, the model's text a
// response, its thinking reasoning, a tool_use a tool_call with the
// tool_result answering it as outcome; blocks of other types (an image,
// redacted thinking) are no event. A tool_result given to ccItem answers
// no tool_use of the file (its call is in an earlier file of a resumed
// session, say) and is an observation.
func (f *File) ccItem(l *ccLine, j int, bl ccBlock, answers map[string]ccResult) (item, bool, error) {
	it := item{step: l.n, form: "transcript", raw: l.text, eventTime: l.time, tool: ToolMessage, source: l.e.Type,
		mark: map[string]any{"uuid": l.e.UUID, "block": j}}
	if l.e.Subtype != "" {
		it.mark["subtype"] = l.e.Subtype
	}
	switch bl.Type {
	case "text":
		it.kind = format.KindObservation
		if l.e.Type == "assistant" {
			it.kind = format.KindResponse
		}
		it.payload = map[string]any{"content": text(bl.Text)}
	case "thinking":
		it.kind, it.source = format.KindReasoning, bl.Type
		it.payload = map[string]any{"content": text(bl.Thinking)}
	case "tool_use":
		if err := f.ccToolUse(&it, bl, answers); err != nil {
			return it, false, err
		}
	case "tool_result":
		it.kind, it.source = format.KindObservation, bl.Type
		it.payload = map[string]any{"content": text(ccResultText(bl.Content))}
		it.mark["tool_use_id"] = bl.ToolUseID
	default:
		return it, false, nil
	}
	return it, true, nil
}

// ccToolUse fills it with a tool_use: a tool_call of the vocabulary's tool
// for Claude Code's tool name (AgentTool: Bash → shell, Read → file_read,
// …; other for a name it has none for), the name and input as intent, and
// the tool_result answering it as outcome.
func (f *File) ccToolUse(it *item, bl ccBlock, answers map[string]ccResult) error {
	tool, ok := AgentTool(bl.Name)
	if !ok {
		tool = ToolOther
	}
	args := map[string]any{}
	if len(bl.Input) > 0 {
		v, err := strictjson.Value(bl.Input)
		if err != nil {
			return f.fail("line", it.step, "the input of tool_use %q: %v", bl.ID, err)
		}
		if m, isMap := v.(map[string]any); isMap {
			args = m
		} else if v != nil {
			args["input"] = v
		}
	}
	it.tool, it.source, it.kind = tool, bl.Name, format.KindToolCall
	it.payload = map[string]any{"intent": map[string]any{"tool": bl.Name, "args": args}}
	it.mark["tool_use_id"] = bl.ID
	a, answered := answers[bl.ID]
	if !answered {
		return nil
	}
	out := ccResultText(a.block.Content)
	var exitCode *int64
	var errText string
	if a.block.IsError {
		errText, _, _ = strings.Cut(out, "\n")
		if tool == ToolShell {
			exitCode = ccExitCode(out)
		}
	}
	it.payload["execution"] = outcome(out, exitCode, a.block.IsError, errText, it.eventTime, a.line.time)
	it.mark["result_line"], it.mark["result_raw"] = a.line.n, json.RawMessage(a.line.text)
	return nil
}

// ccResultText is a tool_result's content: a string, or the texts of its
// list of blocks (an image has none), joined.
func ccResultText(raw json.RawMessage) string {
	blocks, err := ccBlocks(raw)
	if err != nil {
		return ""
	}
	texts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// ccExitRe is how Claude Code's Bash tool opens the result of a command
// that exited non-zero.
var ccExitRe = regexp.MustCompile(`^(?:Error: )?Exit code (-?\d+)`)

// ccExitCode is the exit code a failed Bash result opens with, nil for
// none.
func ccExitCode(out string) *int64 {
	m := ccExitRe.FindStringSubmatch(out)
	if m == nil {
		return nil
	}
	c, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return nil
	}
	return &c
}
