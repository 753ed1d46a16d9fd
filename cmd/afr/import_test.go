package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/internal/traces"
)

// The committed trajectories, imported with afr import, answer the
// queries an incident responder asks with the counts a person gets by
// counting the files by hand: failed commands, events after a time by the
// source's own clock, shell commands, the events of one run. A copy of the
// OpenHands stream whose mv command exited 1 gives the failure.
func TestImportQueries(t *testing.T) {
	dir, err := traces.Committed()
	if err != nil {
		t.Fatal(err)
	}
	swe := filepath.Join(dir, "swe-agent", "6e44b9__sweagenttestrepo-1c2844.traj")
	oh := filepath.Join(dir, "openhands", "wrong_initial_state.json")
	b, err := os.ReadFile(oh)
	if err != nil {
		t.Fatal(err)
	}
	const ran = `"exit_code": 0`
	if strings.Count(string(b), ran) != 1 {
		t.Fatalf("%s: want the one command's %s", oh, ran)
	}
	failing := filepath.Join(t.TempDir(), "mv_failed.json")
	if err := os.WriteFile(failing, bytes.Replace(b, []byte(ran), []byte(`"exit_code": 1`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "log")
	if code, stderr := afr("import", "swe-agent", "--log", log, "--recorder", "import-1", swe); code != exitOK {
		t.Fatalf("import swe-agent: exit %d: %s", code, stderr)
	}
	if code, stderr := afr("import", "openhands", "--log", log, oh, failing); code != exitOK {
		t.Fatalf("import openhands: exit %d: %s", code, stderr)
	}
	queryCounts(t, log, []queryCount{
		// The SWE-agent run submitted (info.exit_status "submitted") and
		// writes no exit codes; the stream's one command, mv, exited 0, and
		// 1 in the copy.
		{"failed", []string{"--where", "execution.status=failed"}, 1},
		{"exit code 1", []string{"--where", "execution.exit_code=1"}, 1},
		// Each stream's events at or after 23:16:55: run (23:16:56.95),
		// read (23:16:59.80), finish (23:17:02.18), each action with its
		// observation; the SWE-agent run has no timestamps.
		{"by event", []string{"--by", "event", "--since", "2025-01-27T23:16:55Z"}, 2 * 3},
		// python3 missing_colon.py (bash) in the SWE-agent run, mv in each
		// stream.
		{"shell", []string{"--tool", "shell"}, 1 + 2},
		{"file_read", []string{"--tool", "file_read"}, 1 + 2*2},
		// The SWE-agent run (instance SWE-agent__test-repo-i1): the system
		// prompt, the task, five actions, the submission.
		{"run", []string{"--run", "SWE-agent__test-repo-i1"}, 8},
		// The stream: the request, read, run, read, finish.
		{"stream run", []string{"--run", "wrong_initial_state"}, 5},
		{"model text", []string{"--where", "content.text~Great, I found the file"}, 2},
		{"submission", []string{"--tool", "submission", "--where", "content.text~+def division(a: float, b: float) -> float:"}, 1},
	})
}

// The sessions of two coding-agent CLIs, written to the formats they write
// (importer/testdata), imported with afr import claude-code and codex into
// one log, answer the same queries with the counts taken by hand: in each,
// the agent runs the tests (exit 1), reads calc.py, edits it, runs the
// tests again (exit 0) and answers.
func TestImportAgentCLIs(t *testing.T) {
	const (
		cc = "../../importer/testdata/claude-code/3f1c2a9e-5b7d-4c21-9a0e-6d8b1f2e4a77.jsonl"
		cx = "../../importer/testdata/codex/rollout-2025-06-12T10-02-11-0197a1b2-7c3d-7e4f-8a9b-1c2d3e4f5a6b.jsonl"
	)
	log := filepath.Join(t.TempDir(), "log")
	if code, stderr := afr("import", "claude-code", "--log", log, "--recorder", "import-1", cc); code != exitOK {
		t.Fatalf("import claude-code: exit %d: %s", code, stderr)
	}
	if code, stderr := afr("import", "codex", "--log", log, cx); code != exitOK {
		t.Fatalf("import codex: exit %d: %s", code, stderr)
	}
	queryCounts(t, log, []queryCount{
		// The first test run of each session exited 1.
		{"failed", []string{"--where", "execution.status=failed"}, 2},
		{"exit code 1", []string{"--where", "execution.exit_code=1"}, 2},
		// Bash twice; Codex's shell three times (its read is sed -n).
		{"shell", []string{"--tool", "shell"}, 2 + 3},
		{"file_read", []string{"--tool", "file_read"}, 1},
		{"file_edit", []string{"--tool", "file_edit"}, 2},
		// Claude Code: the prompt, thinking, its text, four calls, its
		// answer; Codex: the environment context, the prompt, the reasoning
		// summary, four calls, its answer.
		{"claude code run", []string{"--run", "3f1c2a9e-5b7d-4c21-9a0e-6d8b1f2e4a77"}, 8},
		{"codex run", []string{"--run", "0197a1b2-7c3d-7e4f-8a9b-1c2d3e4f5a6b"}, 8},
		// By the sessions' own clocks: the Claude Code session's Read
		// (09:14:11), Edit, Bash and answer, and every Codex event (10:02);
		// then the Codex session's sed, apply_patch, shell and answer.
		{"by event", []string{"--by", "event", "--since", "2025-06-12T09:14:10Z"}, 4 + 8},
		{"by event later", []string{"--by", "event", "--since", "2025-06-12T10:02:20Z"}, 4},
		{"prompt", []string{"--where", "content.text~The tests in test_calc.py fail."}, 2},
		{"model text", []string{"--where", "content.text~divide() now raises ValueError"}, 2},
	})
}

// queryCount is an afr query and the number of events it finds.
type queryCount struct {
	why  string
	args []string
	want int
}

// queryCounts runs each query on the log and checks how many
// events it finds.
func queryCounts(t *testing.T, log string, queries []queryCount) {
	t.Helper()
	for _, tc := range queries {
		t.Run(tc.why, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"query", "--log", log, "--json"}, tc.args...)
			if code := run(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}, args); code != exitOK {
				t.Fatalf("afr %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
			}
			var answer struct {
				Events []json.RawMessage `json:"events"`
			}
			if err := json.Unmarshal(out.Bytes(), &answer); err != nil {
				t.Fatal(err)
			}
			if len(answer.Events) != tc.want {
				t.Errorf("afr %s: %d events, want %d", strings.Join(args, " "), len(answer.Events), tc.want)
			}
		})
	}
}
