package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/serve"
)

// hookPayload is a recorded hook payload from hook/testdata (README.md
// there names the documentation each comes from).
func hookPayload(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "hook", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withToolUseID is payload with another tool_use_id, for two calls in
// flight at once (the documentation's examples all share one).
func withToolUseID(t *testing.T, payload []byte, id string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	m["tool_use_id"] = id
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hookDaemon runs afr serve's daemon over a new log on a free loopback
// port; stop shuts it down (sealing the log) and returns the log's
// directory.
func hookDaemon(t *testing.T) (url, tokenFile string, stop func() string) {
	t.Helper()
	dir := t.TempDir()
	d, err := serve.Start(context.Background(), serve.Config{Dir: dir, Recorder: recorder.Options{Recorder: "hook-test"}, Listen: "127.0.0.1:0", Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop = func() string {
		if !stopped {
			stopped = true
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := d.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	t.Cleanup(func() { stop() })
	return "http://" + d.Addr().String(), d.TokenFile(), stop
}

// runHookCmd runs afr hook with payload on its standard input.
func runHookCmd(payload []byte, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(&env{stdin: bytes.NewReader(payload), stdout: &out, stderr: &errb}, append([]string{"hook"}, args...))
	return code, out.String(), errb.String()
}

// loggedEvent is what the test reads back of an event with afr query --json.
type loggedEvent struct {
	Seq      uint64 `json:"seq"`
	Envelope struct {
		Tool      string `json:"tool"`
		Kind      string `json:"kind"`
		Run       string `json:"run"`
		ID        string `json:"id"`
		EventTime int64  `json:"event_time"`
	} `json:"envelope"`
	Payload struct {
		Intent *struct {
			Tool string         `json:"tool"`
			Args map[string]any `json:"args"`
		} `json:"intent"`
		Execution *struct {
			Status string `json:"status"`
			Error  string `json:"error"`
			Output *struct {
				Text string `json:"text"`
			} `json:"output"`
		} `json:"execution"`
		Context *struct {
			ParentIDs []string `json:"parent_ids"`
		} `json:"context"`
		Content *struct {
			Text string `json:"text"`
		} `json:"content"`
		Ext map[string]map[string]any `json:"ext"`
	} `json:"payload"`
}

// queryLog runs afr query --json over dir with args and returns its
// events and causal links.
func queryLog(t *testing.T, dir string, args ...string) ([]loggedEvent, []struct{ From, To uint64 }) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, append([]string{"query", "--log", dir, "--json"}, args...)); code != 0 {
		t.Fatalf("afr query %v: exit %d\n%s", args, code, errb.String())
	}
	var ans struct {
		Events []loggedEvent
		Links  []struct {
			From, To uint64
			Via, ID  string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &ans); err != nil {
		t.Fatal(err)
	}
	var links []struct{ From, To uint64 }
	for _, l := range ans.Links {
		if l.Via != "context_id" {
			t.Errorf("link %+v: via %q, want context_id", l, l.Via)
		}
		links = append(links, struct{ From, To uint64 }{l.From, l.To})
	}
	return ans.Events, links
}

// want is what the test expects of one recorded event.
type want struct {
	kind, tool, run string
	id              string // the intent's id
	status          string // an outcome's
	intent          int    // an outcome's intent, by seq; -1 for none
	text            string // in the output, the content or an error
}

func TestHookThroughServe(t *testing.T) {
	const claude, gemini = "abc123", "c9a3b0f2-5f1e-4d2a-9b7e-2f4d1c8e6a10"
	const derived = "call-" // Gemini CLI's call ids are derived (hook.CallID)
	for _, tc := range []struct {
		name     string
		payloads [][]byte
		reply    string
		want     []want
	}{{
		name: "claude-code turn",
		payloads: [][]byte{
			hookPayload(t, "claude-code/user-prompt-submit.json"),
			hookPayload(t, "claude-code/pre-tool-use-write.json"),
			hookPayload(t, "claude-code/post-tool-use-write.json"),
			hookPayload(t, "claude-code/stop.json"),
		},
		want: []want{
			{kind: "observation", tool: "prompt", run: claude, intent: -1, text: "factorial of a number"},
			{kind: "tool_call", tool: "file_edit", run: claude, id: "toolu_01ABC123...", intent: -1, text: "file content"},
			{kind: "tool_call", tool: "file_edit", run: claude, status: "ok", intent: 1, text: `"success":true`},
			{kind: "response", tool: "agent", run: claude, intent: -1},
		},
	}, {
		name: "claude-code failure",
		payloads: [][]byte{
			hookPayload(t, "claude-code/pre-tool-use-bash.json"),
			hookPayload(t, "claude-code/post-tool-use-failure-bash.json"),
		},
		want: []want{
			{kind: "tool_call", tool: "shell", run: claude, id: "toolu_01ABC123...", intent: -1, text: "npm test"},
			{kind: "tool_call", tool: "shell", run: claude, status: "failed", intent: 0, text: "non-zero status code 1"},
		},
	}, {
		// Two calls in flight: each outcome links to its own intent.
		name: "claude-code interleaved",
		payloads: [][]byte{
			withToolUseID(t, hookPayload(t, "claude-code/pre-tool-use-write.json"), "toolu_write"),
			withToolUseID(t, hookPayload(t, "claude-code/pre-tool-use-bash.json"), "toolu_bash"),
			withToolUseID(t, hookPayload(t, "claude-code/post-tool-use-failure-bash.json"), "toolu_bash"),
			withToolUseID(t, hookPayload(t, "claude-code/post-tool-use-write.json"), "toolu_write"),
		},
		want: []want{
			{kind: "tool_call", tool: "file_edit", run: claude, id: "toolu_write", intent: -1, text: "file content"},
			{kind: "tool_call", tool: "shell", run: claude, id: "toolu_bash", intent: -1, text: "npm test"},
			{kind: "tool_call", tool: "shell", run: claude, status: "failed", intent: 1, text: "non-zero status code 1"},
			{kind: "tool_call", tool: "file_edit", run: claude, status: "ok", intent: 0, text: "filePath"},
		},
	}, {
		// Gemini CLI gives no call id: the outcome finds its intent by
		// the id both derive from the tool and its arguments, here with
		// the second call finishing first.
		name: "gemini-cli turn",
		payloads: [][]byte{
			hookPayload(t, "gemini-cli/before-agent.json"),
			hookPayload(t, "gemini-cli/before-tool-shell.json"),
			hookPayload(t, "gemini-cli/before-tool-write.json"),
			hookPayload(t, "gemini-cli/after-tool-write-error.json"),
			hookPayload(t, "gemini-cli/after-tool-shell.json"),
			hookPayload(t, "gemini-cli/after-agent.json"),
		},
		reply: "{}\n",
		want: []want{
			{kind: "observation", tool: "prompt", run: gemini, intent: -1, text: "add example.test"},
			{kind: "tool_call", tool: "shell", run: gemini, id: derived, intent: -1, text: "npm test"},
			{kind: "tool_call", tool: "file_edit", run: gemini, id: derived, intent: -1, text: "/etc/hosts"},
			{kind: "tool_call", tool: "file_edit", run: gemini, status: "failed", intent: 2, text: "permission denied: /etc/hosts"},
			{kind: "tool_call", tool: "shell", run: gemini, status: "ok", intent: 1, text: "12 passing"},
			{kind: "response", tool: "agent", run: gemini, intent: -1, text: "could not write /etc/hosts"},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			url, token, stop := hookDaemon(t)
			for i, p := range tc.payloads {
				code, stdout, stderr := runHookCmd(p, "--serve", url, "--token-file", token)
				if code != 0 || stdout != tc.reply {
					t.Fatalf("payload %d: exit %d, stdout %q (want 0, %q)\n%s", i, code, stdout, tc.reply, stderr)
				}
			}
			dir := stop()
			events, _ := queryLog(t, dir)
			if len(events) != len(tc.want) {
				t.Fatalf("%d events, want %d", len(events), len(tc.want))
			}
			for i, w := range tc.want {
				checkHookEvent(t, dir, events, i, w)
			}
		})
	}
}

// checkHookEvent compares event i with w, following an outcome's causal
// chain back with afr query --causal.
func checkHookEvent(t *testing.T, dir string, events []loggedEvent, i int, w want) {
	t.Helper()
	ev := events[i]
	env, p := ev.Envelope, ev.Payload
	if env.Kind != w.kind || env.Tool != w.tool || env.Run != w.run {
		t.Errorf("event %d: %s %s run %q, want %s %s run %q", i, env.Kind, env.Tool, env.Run, w.kind, w.tool, w.run)
	}
	if !strings.HasPrefix(env.ID, w.id) || (w.id == "") != (env.ID == "") {
		t.Errorf("event %d: id %q, want %q", i, env.ID, w.id)
	}
	var text string
	if b, err := json.Marshal(p.Intent); err == nil && p.Intent != nil {
		text = string(b)
	}
	switch {
	case p.Content != nil:
		text = p.Content.Text
	case p.Execution != nil:
		if p.Execution.Status != w.status {
			t.Errorf("event %d: status %q, want %q", i, p.Execution.Status, w.status)
		}
		text = p.Execution.Error
		if p.Execution.Output != nil {
			text += "\n" + p.Execution.Output.Text
		}
	}
	if !strings.Contains(text, w.text) {
		t.Errorf("event %d: %q does not hold %q", i, text, w.text)
	}
	if p.Ext["hook"]["event"] == nil {
		t.Errorf("event %d: no ext hook.event: %v", i, p.Ext)
	}
	if w.intent < 0 {
		if p.Context != nil {
			t.Errorf("event %d: parent ids %v, want none", i, p.Context.ParentIDs)
		}
		return
	}
	if p.Context == nil || len(p.Context.ParentIDs) != 1 || p.Context.ParentIDs[0] != events[w.intent].Envelope.ID {
		t.Fatalf("event %d: context %+v, want the parent id %q", i, p.Context, events[w.intent].Envelope.ID)
	}
	chain, links := queryLog(t, dir, "--causal", strconv.Itoa(i))
	if len(links) != 1 || links[0].From != uint64(w.intent) || links[0].To != uint64(i) || len(chain) != 2 {
		t.Errorf("event %d: causal links %+v over %d events, want %d -> %d only", i, links, len(chain), w.intent, i)
	}
}

func TestHookFailures(t *testing.T) {
	url, token, _ := hookDaemon(t)
	pre := hookPayload(t, "claude-code/pre-tool-use-bash.json")
	stop := hookPayload(t, "claude-code/stop.json")
	down := "http://127.0.0.1:1" // nothing listens on port 1
	wrongToken := filepath.Join(t.TempDir(), "wrong.token")
	if err := os.WriteFile(wrongToken, []byte("0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		payload []byte
		args    []string
		code    int
		stderr  string
	}{
		{"daemon down", pre, []string{"--serve", down, "--token-file", token}, 1, "the daemon at " + down},
		{"daemon down, fail closed", pre, []string{"--serve", down, "--token-file", token, "--fail-closed"}, 2, "--fail-closed"},
		{"stop, fail closed", stop, []string{"--serve", down, "--token-file", token, "--fail-closed"}, 1, "the daemon at " + down},
		{"wrong token", pre, []string{"--serve", url, "--token-file", wrongToken}, 1, "HTTP 401"},
		{"not a hook payload", []byte(`{"tool":"shell"}`), []string{"--serve", url, "--token-file", token}, 1, "no hook_event_name"},
		{"an event not recorded", []byte(`{"session_id":"s","hook_event_name":"Notification"}`), []string{"--serve", url, "--token-file", token}, 1, `"Notification" is not recorded`},
		{"not JSON, fail closed", []byte(`PreToolUse`), []string{"--serve", url, "--token-file", token, "--fail-closed"}, 2, "the payload"},
		{"no --serve", pre, []string{"--token-file", token}, 1, "--serve URL is required"},
		{"a bad flag", pre, []string{"--serve", url, "--token-file", token, "--block"}, 1, "afr help hook"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runHookCmd(tc.payload, tc.args...)
			if code != tc.code || stdout != "" || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, no stdout, stderr holding %q", code, stdout, stderr, tc.code, tc.stderr)
			}
		})
	}
	var out bytes.Buffer
	if code := run(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &out}, []string{"help", "hook"}); code != 0 || !strings.Contains(out.String(), "PreToolUse") || !strings.Contains(out.String(), "-fail-closed") {
		t.Errorf("afr help hook: exit %d\n%s", code, out.String())
	}
}

// BenchmarkHook measures what afr hook adds to each tool call of an agent:
// one process reading a recorded payload and appending its event through a
// daemon (durable, group sync), against the bare start of the same binary
// (afr version), the two interleaved in each iteration so that the
// machine's load falls on both alike. It reports the medians.
func BenchmarkHook(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "afr")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	d, err := serve.Start(context.Background(), serve.Config{Dir: b.TempDir(), Recorder: recorder.Options{Recorder: "hook-bench"}, Listen: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Shutdown(context.Background()) })
	payload := hookPayload(b, "claude-code/pre-tool-use-bash.json")
	hookArgs := []string{"hook", "--serve", "http://" + d.Addr().String(), "--token-file", d.TokenFile()}
	timed := func(args ...string) time.Duration {
		cmd := exec.Command(bin, args...)
		cmd.Stdin = bytes.NewReader(payload)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		if err != nil {
			b.Fatalf("afr %v: %v\n%s", args, err, out)
		}
		return took
	}
	var starts, hooks []time.Duration
	for b.Loop() {
		starts = append(starts, timed("version"))
		hooks = append(hooks, timed(hookArgs...))
	}
	median := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds()) / 1e3
	}
	s, h := median(starts), median(hooks)
	b.ReportMetric(s, "ms/start")
	b.ReportMetric(h, "ms/hook")
	b.ReportMetric(h/s, "x_start")
}
