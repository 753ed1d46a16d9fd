package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentflightrecorder/afr/bench"
	"github.com/agentflightrecorder/afr/importer"
)

func init() {
	register(&command{name: "import", summary: "import trajectories of other agent frameworks into a log", run: runImport, usage: `
Usage: afr import FORMAT (--log DIR | --serve URL --token-file FILE) [flags] FILE...

Converts trajectories that an agent framework wrote and appends them to the
log in DIR, creating it if needed (--recorder is then required). FORMAT is
one of:

  swe-agent   SWE-agent .traj files, old (state as a JSON string) and new
              (state as an object) forms; a file without "trajectory" is
              imported from its "history"; demonstration messages are
              skipped. The system prompt and the task are observations;
              each action is a tool_call with the arguments of its tool
              call when the history has them, else its command text, the
              model's text as content and the observation as its output;
              an edit names the file it targets (the last one opened). The
              run's "info" is a final submission event (the patch, the exit
              status: failed unless submitted, the cost). The run is the
              instance id.
  openhands   OpenHands event streams (a JSON array of events): agent
              actions are tool_calls with the model's function call as
              intent, its thought as content, and the observation that
              answers them as outcome (output, exit code, status); messages
              are observations (the user's) and responses (the agent's);
              timestamps are event times. The run is the file's name.
  claude-code Claude Code session transcripts (~/.claude/projects/PROJECT/
              SESSION.jsonl): the user's prompts are observations, the
              model's text responses and its thinking reasoning; each
              tool_use is a tool_call (Bash shell, Read file_read, Edit and
              Write file_edit, Grep and Glob file_search, …) whose outcome is
              the tool_result answering it (failed when is_error, a failed
              Bash's exit code); parentUuid links each event to the one
              before it; timestamps are event times. The run is the
              session id.
  codex       Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/
              rollout-*.jsonl): messages are observations (the user's) and
              responses (the model's), reasoning summaries reasoning; each
              function_call, custom_tool_call (apply_patch) and
              local_shell_call is a tool_call whose outcome is the output
              its call_id names (exit code from the output's metadata or
              head, else exec_command_end); timestamps are event times. The
              run is the session id (session_meta).
  jsonl       AFR event JSON, one event a line, as afr record reads it.

Tools are named from one vocabulary (shell, file_read, file_search,
file_edit, browse, submit, other, message, submission), the file's own name
kept in ext.import.tool: afr query --tool shell finds the shell commands of
every format (docs/IMPORT.md).

A file of one format given as another is refused saying which it looks
like (an OpenHands array, a Codex line given as claude-code, …).

AFR did not observe these events; another program wrote them down. Every
imported event says so in its payload's ext "import": the format, the source
file and the step (or line) it came from, and the step as written
(docs/SPEC.md, "Imported events").

Each file is converted whole before any of it is recorded: a malformed file
is refused with its name and the step (or line) that is wrong, nothing of
it is recorded, and every file before it stays recorded and durable. The output
counts the actions by category (shell, edit, read, other) beside the
paper's figures for its five SWE-agent runs.

When afr serve holds the log, write through it instead: --serve URL
--token-file LOG/serve.token in place of --log (never both: the daemon is
the log's one writer).

Examples:
  afr import swe-agent --log ./afr-log --recorder ops-1 --encrypt run1.traj run2.traj
  afr import openhands --log ./afr-log events.json
  afr import claude-code --log ./afr-log ~/.claude/projects/*/*.jsonl
  afr import codex --log ./afr-log ~/.codex/sessions/2025/*/*/rollout-*.jsonl
  afr import jsonl --log ./afr-log events.jsonl`})
}

func runImport(e *env, args []string) error {
	fs := commands["import"].flags(e)
	dir := openFlags(fs)
	wf := writerFlags(fs)
	df := addDaemonFlags(fs)
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if err := parse(fs, args); err != nil {
			return err
		}
		return usageError{"the format comes first: afr import " + strings.Join(importer.Formats, "|") + " --log DIR FILE..."}
	}
	formatName := args[0]
	if !slices.Contains(importer.Formats, formatName) {
		return usageError{fmt.Sprintf("unknown format %q (want one of %s)", formatName, strings.Join(importer.Formats, ", "))}
	}
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{"no files to import"}
	}
	r, err := df.writer(e, wf, *dir)
	if err != nil {
		return err
	}
	ctx := context.Background()
	total := map[string]int{}
	events := 0
	var failure error
	for _, path := range fs.Args() {
		f, err := importer.Read(formatName, path)
		if err != nil {
			failure = err
			break
		}
		rcs, err := f.Record(ctx, r)
		if len(rcs) > 0 {
			by := f.ByCategory()
			fmt.Fprintf(e.stdout, "%s: %d events (seq %d..%d), actions: %s\n", path, len(rcs), rcs[0].Seq, rcs[len(rcs)-1].Seq, categories(by, nil))
			for c, n := range by {
				total[c] += n
			}
			events += len(rcs)
		}
		if err != nil {
			failure = err
			break
		}
	}
	if err := r.Close(); err != nil {
		return errors.Join(failure, err)
	}
	fmt.Fprintf(e.stdout, "imported %d events, %s\nactions by category: %s\n", events, closedNote(r), categories(total, bench.PaperCategories))
	return failure
}

// categories writes action counts by category as "shell 3 (60%, paper
// 47%), …"; paper, when given, holds the paper's percentages.
func categories(by map[string]int, paper map[string]float64) string {
	all := 0
	for _, n := range by {
		all += n
	}
	var parts []string
	for _, c := range importer.Categories {
		s := fmt.Sprintf("%s %d (%.0f%%", c, by[c], 100*float64(by[c])/float64(max(all, 1)))
		if p, ok := paper[c]; ok {
			s += fmt.Sprintf(", paper %.0f%%", p)
		}
		parts = append(parts, s+")")
	}
	return strings.Join(parts, ", ")
}
