package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/hook"
)

func init() {
	register(&command{name: "hook", summary: "record a coding agent's hook event (Claude Code, Gemini CLI) through afr serve", run: runHook, usage: `
Usage: afr hook --serve URL --token-file FILE [--fail-closed] [--timeout D] < PAYLOAD

The command a coding agent's hooks run: it reads the one JSON object the
agent writes on the hook's standard input and appends the event that
records it to the log afr serve holds (docs/HOOKS.md), then exits.

  Claude Code   PreToolUse          an intent (tool_call: tool_name, tool_input)
                PostToolUse         its outcome (execution ok, the tool_response)
                PostToolUseFailure  its outcome (execution failed, the error)
                UserPromptSubmit    an observation (the prompt as content)
                Stop                a response (the end of the turn)
  Gemini CLI    BeforeTool, AfterTool, BeforeAgent, AfterAgent: the same

The session id is the events' run. The intent carries the call's id
(Claude Code's tool_use_id; for Gemini CLI, which gives none, a digest of
the tool name and arguments) and the outcome names it in
context.parent_ids, so "afr query --causal" links them although two
processes wrote them.

Exit codes are those the agents read: 0 once the event is durable (Gemini
CLI then gets {} on standard output, Claude Code nothing); 1 when it could
not be recorded (the daemon down, a refused event, a payload that is not a
hook's), which both agents report and go on from. With --fail-closed that
is exit 2 instead, which both read as "block": a tool call whose intent
could not be recorded does not run, a prompt is not processed. Stop and
AfterAgent still get 1 (exit 2 there makes the agent go on). Without
--fail-closed afr hook never exits 2, usage errors included.

Example (~/.claude/settings.json, docs/HOOKS.md has the whole block):
  "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command",
    "command": "afr hook --serve http://127.0.0.1:8787 --token-file ~/afr-log/serve.token"}]}]`})
}

func runHook(e *env, args []string) error {
	fs := commands["hook"].flags(e)
	df := daemonFlags{
		url:       fs.String("serve", "", "the recorder daemon's URL (afr serve, e.g. http://127.0.0.1:8787)"),
		tokenFile: fs.String("token-file", "", "the daemon's bearer token file (afr serve writes LOG/serve.token)"),
	}
	failClosed := fs.Bool("fail-closed", false, "exit 2 (block the tool call or prompt) when the event cannot be recorded, instead of 1 (go on)")
	timeout := fs.Duration("timeout", 10*time.Second, "how long to wait for the daemon's receipt")
	kind, err := recordHook(e, fs, df, args, timeout)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return err
	case *failClosed && kind != format.KindResponse:
		return codeError{code: exitUsage, err: fmt.Errorf("%w (exit 2, --fail-closed: the agent blocks what it announced)", err)}
	default:
		// Exit 2 tells the agents to block, and at the end of a turn to
		// go on: neither a usage error nor a lost response may do that.
		var ue usageError
		if errors.As(err, &ue) {
			err = fmt.Errorf("%s (hint: afr help hook)", ue.msg)
		}
		return codeError{code: exitError, err: err}
	}
}

// recordHook parses the flags, reads the payload and records its event,
// writing the agent's reply once the event is durable. It returns the
// event's kind once the payload is parsed.
func recordHook(e *env, fs *flag.FlagSet, df daemonFlags, args []string, timeout *time.Duration) (format.Kind, error) {
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	if fs.NArg() > 0 {
		return 0, usageError{fmt.Sprintf("unexpected argument %q: the payload is read from standard input", fs.Arg(0))}
	}
	if *df.url == "" {
		return 0, usageError{"--serve URL is required: hooks append through afr serve (a hook process per event cannot hold the log)"}
	}
	w, err := df.writer(e, recorderFlags{}, "")
	if err != nil {
		return 0, err
	}
	data, err := io.ReadAll(io.LimitReader(e.stdin, format.MaxPayloadSize+1))
	if err != nil {
		return 0, fmt.Errorf("reading the payload: %w", err)
	}
	if len(data) > format.MaxPayloadSize {
		return 0, fmt.Errorf("the payload is over %d bytes, the limit of an event's payload: nothing recorded", format.MaxPayloadSize)
	}
	ev, agent, err := hook.Parse(data)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if _, err := w.Record(ctx, ev); err != nil {
		return ev.Kind, err
	}
	_, err = io.WriteString(e.stdout, agent.Reply())
	return ev.Kind, err
}
