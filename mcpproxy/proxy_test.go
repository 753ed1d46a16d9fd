package mcpproxy_test

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/mcpproxy"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

// childEnv makes the test binary the proxy: TestMain runs it over its
// standard streams with the configuration in this variable (JSON).
const childEnv = "AFR_MCPPROXY_TEST_CHILD"

type childConfig struct {
	Log        string   `json:"log"`
	Policy     string   `json:"policy,omitempty"`
	ApproveAll bool     `json:"approve_all,omitempty"`
	Sync       string   `json:"sync,omitempty"`
	MaxMessage int      `json:"max_message,omitempty"`
	Await      bool     `json:"await_outcome,omitempty"`
	Server     []string `json:"server"`
}

// serverEnv makes the test binary a minimal MCP server over its standard
// streams (runServer).
const serverEnv = "AFR_MCPPROXY_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) != "" { // before childEnv, which the proxy passes on to its server
		os.Exit(runServer(os.Stdin, os.Stdout))
	}
	if cfg := os.Getenv(childEnv); cfg != "" {
		os.Exit(runChild(cfg))
	}
	os.Exit(m.Run())
}

// runChild is the proxy as afr mcp-proxy runs it.
func runChild(raw string) int {
	var cfg childConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	sync := recorder.SyncGroup
	if cfg.Sync != "" {
		var err error
		if sync, err = recorder.ParseSyncPolicy(cfg.Sync); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	r, err := recorder.Open(cfg.Log, recorder.Options{Recorder: "mcp-test", Sync: sync})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var policy *mcpproxy.Policy
	if cfg.Policy != "" {
		if policy, err = mcpproxy.ReadPolicy(cfg.Policy); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(mcpproxy.GCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	p := mcpproxy.New(mcpproxy.Options{Recorder: r, Policy: policy, ApproveAll: cfg.ApproveAll, Log: os.Stderr, MaxMessage: cfg.MaxMessage, AwaitOutcome: cfg.Await})
	err = p.Stdio(ctx, os.Stdin, os.Stdout, exec.Command(cfg.Server[0], cfg.Server[1:]...))
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "afr mcp-proxy:", err)
		return 1
	}
	return 0
}

// npmServer returns the path of an MCP reference server from the
// project's npm toolchain, or skips the test saying what is missing.
func npmServer(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	return npmBin(t, p)
}

// npmBin returns p, a program of the npm toolchain, or skips the test
// when node or p is missing.
func npmBin(t testing.TB, p string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("node is not on PATH (%v): the npm tools cannot run", err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed (%v): run make setup", filepath.Base(p), err)
	}
	return p
}

// proxyCmd is the proxy process (this test binary) in front of server.
func proxyCmd(t testing.TB, cfg childConfig) *exec.Cmd {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(b))
	cmd.Stderr = os.Stderr
	return cmd
}

// connect starts an MCP session of the Go SDK's client over cmd.
func connect(t testing.TB, cmd *exec.Cmd, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "afr-test", Version: "1"}, opts)
	s, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// logEvents verifies the log in dir against its own epoch roots and
// returns its events.
func logEvents(t *testing.T, dir string) []*verifier.Event { return logtest.Events(t, dir) }

// recordedOutput is the output text an execution event keeps
// (execution.output), "" when it keeps none.
func recordedOutput(ev *verifier.Event) string {
	if x := ev.Payload.Execution; x != nil && x.Output != nil {
		return x.Output.Text
	}
	return ""
}

// pair is one tools/call as the log holds it.
type pair struct {
	intent, policy, exec *verifier.Event
}

// calls pairs every execution with the intent its context names first,
// and checks that both carry the same request id.
func calls(t *testing.T, evs []*verifier.Event) []pair {
	t.Helper()
	bySeq := map[uint64]*verifier.Event{}
	for _, ev := range evs {
		bySeq[ev.Seq] = ev
	}
	var out []pair
	for _, ev := range evs {
		if ev.Payload.Execution == nil {
			continue
		}
		if ev.Payload.Context == nil || len(ev.Payload.Context.Parents) == 0 {
			t.Fatalf("execution %d has no causal parent", ev.Seq)
		}
		in := bySeq[ev.Payload.Context.Parents[0]]
		if in == nil || in.Payload.Intent == nil {
			t.Fatalf("execution %d: parent %d is not an intent", ev.Seq, ev.Payload.Context.Parents[0])
		}
		if in.Payload.Ext[mcpproxy.ExtRequestID] != ev.Payload.Ext[mcpproxy.ExtRequestID] || in.Envelope.Tool != ev.Envelope.Tool {
			t.Fatalf("execution %d (id %v, %s) paired with intent %d (id %v, %s)", ev.Seq, ev.Payload.Ext[mcpproxy.ExtRequestID], ev.Envelope.Tool,
				in.Seq, in.Payload.Ext[mcpproxy.ExtRequestID], in.Envelope.Tool)
		}
		p := pair{intent: in, exec: ev}
		if len(ev.Payload.Context.Parents) > 1 {
			p.policy = bySeq[ev.Payload.Context.Parents[1]]
		}
		out = append(out, p)
	}
	return out
}

func texts(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestFilesystemServer: the Go SDK's client through the proxy to the
// reference filesystem server gets what it gets directly, and the log
// verifies and holds every call as an intent/execution pair.
func TestFilesystemServer(t *testing.T) {
	server := npmServer(t, "mcp-server-filesystem")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logDir := filepath.Join(t.TempDir(), "log")
	ctx := context.Background()
	proxied := connect(t, proxyCmd(t, childConfig{Log: logDir, Server: []string{server, root}}), nil)
	direct := connect(t, exec.Command(server, root), nil)

	pt, err := proxied.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	dt, err := direct.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	toolNames := func(r *mcp.ListToolsResult) (n []string) {
		for _, tl := range r.Tools {
			n = append(n, tl.Name)
		}
		return n
	}
	if !slices.Equal(toolNames(pt), toolNames(dt)) || !slices.Contains(toolNames(pt), "write_file") {
		t.Fatalf("tools through the proxy %v, directly %v", toolNames(pt), toolNames(dt))
	}
	written := filepath.Join(root, "b.txt")
	steps := []struct {
		tool string
		args map[string]any
	}{
		{"read_text_file", map[string]any{"path": filepath.Join(root, "a.txt"), "head": 1}},
		{"write_file", map[string]any{"path": written, "content": "gamma"}},
		{"list_directory", map[string]any{"path": root}},
		{"read_text_file", map[string]any{"path": filepath.Join(root, "missing.txt")}},
	}
	var outputs []string
	for _, s := range steps {
		got, err := proxied.CallTool(ctx, &mcp.CallToolParams{Name: s.tool, Arguments: s.args})
		if err != nil {
			t.Fatalf("%s through the proxy: %v", s.tool, err)
		}
		want, err := direct.CallTool(ctx, &mcp.CallToolParams{Name: s.tool, Arguments: s.args})
		if err != nil {
			t.Fatalf("%s directly: %v", s.tool, err)
		}
		if texts(t, got) != texts(t, want) || got.IsError != want.IsError {
			t.Fatalf("%s: through the proxy %q (error %v), directly %q (error %v)", s.tool, texts(t, got), got.IsError, texts(t, want), want.IsError)
		}
		outputs = append(outputs, texts(t, got))
	}
	if b, err := os.ReadFile(written); err != nil || string(b) != "gamma" {
		t.Fatalf("written file: %q, %v", b, err)
	}
	direct.Close()
	if err := proxied.Close(); err != nil {
		t.Fatalf("closing the proxied session: %v", err)
	}

	evs := logEvents(t, logDir)
	init, list := evs[0], evs[1]
	if init.Envelope.Kind != format.KindObservation || init.Payload.Ext[mcpproxy.ExtMethod] != "initialize" ||
		init.Payload.Ext[mcpproxy.ExtServer].(map[string]any)["name"] != "secure-filesystem-server" {
		t.Fatalf("first event is not the initialize observation: %+v", init.Payload)
	}
	if list.Payload.Ext[mcpproxy.ExtMethod] != "tools/list" || len(list.Payload.Ext[mcpproxy.ExtTools].([]any)) != len(pt.Tools) ||
		!slices.Equal(list.Payload.Context.Parents, []uint64{init.Seq}) {
		t.Fatalf("second event is not the tools/list observation: %+v", list.Payload)
	}
	ps := calls(t, evs)
	if len(ps) != len(steps) {
		t.Fatalf("%d recorded calls, want %d", len(ps), len(steps))
	}
	for i, s := range steps {
		in, ex := ps[i].intent, ps[i].exec
		if in.Payload.Intent.Tool != s.tool || fmt.Sprint(in.Payload.Intent.Args) != fmt.Sprint(s.args) {
			t.Errorf("call %d: intent %s %v, want %s %v", i, in.Payload.Intent.Tool, in.Payload.Intent.Args, s.tool, s.args)
		}
		if !slices.Equal(in.Payload.Context.Parents, []uint64{list.Seq}) {
			t.Errorf("call %d: intent's parents %v, want the tools/list observation %d", i, in.Payload.Context.Parents, list.Seq)
		}
		if recordedOutput(ex) != outputs[i] || ex.Payload.Execution.End < ex.Payload.Execution.Start || ex.Payload.Execution.Start == 0 {
			t.Errorf("call %d: execution %+v, ext %v", i, ex.Payload.Execution, ex.Payload.Ext)
		}
	}
	if st := ps[3].exec.Payload.Execution.Status; st != format.StatusFailed || ps[3].exec.Payload.Ext[mcpproxy.ExtIsError] != true {
		t.Errorf("reading a missing file: status %s, ext %v", st, ps[3].exec.Payload.Ext)
	}
	sum := sha256.Sum256([]byte("gamma"))
	want := []format.Effect{{FileWrite: &format.FileWrite{Path: written, After: sum[:]}}}
	if got := ps[1].exec.Payload.Effects; fmt.Sprint(got[0].FileWrite) != fmt.Sprint(want[0].FileWrite) || len(got) != 1 {
		t.Errorf("write_file effects %+v, want %+v", got, want)
	}
	if len(ps[0].exec.Payload.Effects) != 0 {
		t.Errorf("a read has effects: %+v", ps[0].exec.Payload.Effects)
	}
}

// TestProgressCancelAndErrors: server-everything's long-running operation
// sends its progress notifications through the proxy; a call the client
// cancels is recorded as cancelled (the cancellation passes on to the
// server); an unknown tool's error result comes back and is recorded as
// failed.
func TestProgressCancelAndErrors(t *testing.T) {
	server := npmServer(t, "mcp-server-everything")
	logDir := filepath.Join(t.TempDir(), "log")
	ctx := context.Background()
	progress := make(chan float64, 100)
	s := connect(t, proxyCmd(t, childConfig{Log: logDir, Server: []string{server}}), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progress <- r.Params.Progress
		},
	})
	params := &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 1, "steps": 4}}
	params.SetProgressToken("tok-1")
	res, err := s.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("long-running operation: %v %+v", err, res)
	}
	// The client's SDK handles notifications apart from the answer, so the
	// last one may reach the handler after CallTool returns: wait for it.
	var got []float64
	for len(got) < 4 {
		select {
		case v := <-progress:
			got = append(got, v)
			continue
		case <-time.After(10 * time.Second):
		}
		break
	}
	if !slices.Equal(got, []float64{1, 2, 3, 4}) {
		t.Fatalf("progress through the proxy: %v, want 1..4", got)
	}

	cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = s.CallTool(cctx, &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 3, "steps": 3}})
	cancel()
	if err == nil {
		t.Fatal("a call cancelled after 0.5 s of 3 s returned no error")
	}
	unknown, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "no-such-tool"})
	if err != nil || !unknown.IsError {
		t.Fatalf("an unknown tool: %v %+v, want a tool error", err, unknown)
	}
	// The session still works after all of that.
	if res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "still here"}}); err != nil || !strings.Contains(texts(t, res), "still here") {
		t.Fatalf("echo after a cancelled call: %v %+v", err, res)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// In the order the client made the calls: the cancelled call's outcome
	// may be recorded after the next call's, when its cancellation reaches
	// the proxy later than that call's answer.
	ps := calls(t, logEvents(t, logDir))
	slices.SortFunc(ps, func(a, b pair) int { return cmp.Compare(a.intent.Seq, b.intent.Seq) })
	outcomes := make([]string, len(ps))
	for i, p := range ps {
		outcomes[i] = p.intent.Payload.Intent.Tool + ":" + p.exec.Payload.Ext[mcpproxy.ExtOutcome].(string)
	}
	want := []string{"trigger-long-running-operation:ok", "trigger-long-running-operation:cancelled", "no-such-tool:tool_error", "echo:ok"}
	if !slices.Equal(outcomes, want) {
		t.Fatalf("recorded outcomes %v, want %v", outcomes, want)
	}
	if e := ps[2].exec.Payload.Execution; e.Status != format.StatusFailed || e.Error != texts(t, unknown) {
		t.Fatalf("unknown tool: recorded %+v, client saw %q", e, texts(t, unknown))
	}
}

// TestPolicyGate: a denied call and one that needs approval get a
// JSON-RPC error the client shows, never reach the server, and are
// recorded with the policy's decision; --approve-all lets the second pass.
func TestPolicyGate(t *testing.T) {
	server := npmServer(t, "mcp-server-filesystem")
	root := t.TempDir()
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(`{"name":"no-writes","rules":[
		{"name":"reads","effect":"allow","tools":["read_*","list_*"]},
		{"name":"dirs","effect":"allow","tools":["create_directory"],"require_approval":true},
		{"name":"writes","effect":"deny","tools":["write_file","edit_file","move_file"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, approveAll := range []bool{false, true} {
		logDir := filepath.Join(t.TempDir(), "log")
		ctx := context.Background()
		s := connect(t, proxyCmd(t, childConfig{Log: logDir, Policy: policy, ApproveAll: approveAll, Server: []string{server, root}}), nil)
		target := filepath.Join(root, "x.txt")
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": target, "content": "no"}})
		if err == nil || !strings.Contains(err.Error(), "denied by policy no-writes") {
			t.Fatalf("write_file under a deny rule: %v", err)
		}
		if _, err := os.Stat(target); !os.IsNotExist(err) {
			t.Fatalf("the denied write reached the server: %v", err)
		}
		dir := filepath.Join(root, "sub")
		_, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "create_directory", Arguments: map[string]any{"path": dir}})
		_, statErr := os.Stat(dir)
		if approveAll {
			if err != nil || statErr != nil {
				t.Fatalf("create_directory approved by --approve-all: %v, %v", err, statErr)
			}
		} else if err == nil || !strings.Contains(err.Error(), "requires human approval") || !os.IsNotExist(statErr) {
			t.Fatalf("create_directory needing approval: %v (directory: %v)", err, statErr)
		}
		if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "list_directory", Arguments: map[string]any{"path": root}}); err != nil {
			t.Fatalf("an allowed call: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		ps := calls(t, logEvents(t, logDir))
		if len(ps) != 3 {
			t.Fatalf("%d recorded calls, want 3", len(ps))
		}
		wantDecision := []format.Decision{format.DecisionDeny, format.DecisionAsk, format.DecisionAllow}
		wantStatus := []format.Status{format.StatusDenied, format.StatusDenied, format.StatusOK}
		if approveAll {
			wantStatus[1] = format.StatusOK
		}
		for i, p := range ps {
			if p.policy == nil || p.policy.Envelope.Kind != format.KindPolicy || p.policy.Payload.Policy.Decision != wantDecision[i] ||
				!strings.HasPrefix(p.policy.Payload.Policy.PolicyID, "no-writes@sha256:") {
				t.Errorf("approve-all %v, call %d (%s): policy event %+v", approveAll, i, p.intent.Envelope.Tool, p.policy)
				continue
			}
			if p.exec.Payload.Execution.Status != wantStatus[i] {
				t.Errorf("approve-all %v, call %d (%s): status %s, want %s", approveAll, i, p.intent.Envelope.Tool, p.exec.Payload.Execution.Status, wantStatus[i])
			}
		}
	}
}

// childOf returns the pid of the only child process of pid.
func childOf(t *testing.T, pid int) int {
	t.Helper()
	for range 100 {
		// A Go process starts children from any of its threads.
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
		var kids []string
		for _, task := range tasks {
			b, _ := os.ReadFile(task)
			kids = append(kids, strings.Fields(string(b))...)
		}
		if len(kids) == 1 {
			n, err := strconv.Atoi(kids[0])
			if err == nil {
				return n
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("process %d has no single child", pid)
	return 0
}

// TestServerCrash: the server dying mid-call answers the call in flight
// with an error, the proxy exits non-zero, and the log verifies with the
// call recorded as server_exited.
func TestServerCrash(t *testing.T) {
	server := npmServer(t, "mcp-server-everything")
	logDir := filepath.Join(t.TempDir(), "log")
	cmd := proxyCmd(t, childConfig{Log: logDir, Server: []string{server}})
	s := connect(t, cmd, nil)
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 20, "steps": 2}})
		done <- err
	}()
	time.Sleep(500 * time.Millisecond)
	if err := syscall.Kill(childOf(t, cmd.Process.Pid), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "exited before answering") {
			t.Fatalf("the call in flight when the server died: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call in flight was not answered after the server died")
	}
	s.Close()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("proxy exit: %v, want exit status 1", cmd.ProcessState)
	}
	ps := calls(t, logEvents(t, logDir))
	if len(ps) != 1 || ps[0].exec.Payload.Ext[mcpproxy.ExtOutcome] != "server_exited" {
		t.Fatalf("recorded calls %+v, want one server_exited", ps)
	}
}

// TestClientDisconnectAndMalformedFrames: raw frames over pipes.
// Malformed frames from the client are answered with a parse error (id
// null) and from the server (a line that is not JSON) dropped; the session
// goes on. The client leaving mid-call ends the proxy with exit 0 and the
// call recorded as abandoned.
func TestClientDisconnectAndMalformedFrames(t *testing.T) {
	server := npmServer(t, "mcp-server-everything")
	logDir := filepath.Join(t.TempDir(), "log")
	// A server that prints a line that is not JSON-RPC before it starts.
	cmd := proxyCmd(t, childConfig{Log: logDir, Server: []string{"sh", "-c", `echo "not json"; exec "$0"`, server}})
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(outPipe)
	send := func(s string) {
		if _, err := io.WriteString(in, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() map[string]any { // the next response (notifications skipped)
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				t.Fatalf("reading from the proxy: %v", err)
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("the proxy sent %q: %v", line, err)
			}
			if _, ok := m["method"]; !ok {
				return m
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := recv(); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("initialize answer: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, bad := range []string{`{not json`, `[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]`, `{"jsonrpc":"1.0","id":2,"method":"x"}`} {
		send(bad)
		m := recv()
		e, _ := m["error"].(map[string]any)
		if v, ok := m["id"]; !ok || v != nil || e == nil || e["code"] != float64(mcpproxy.CodeMalformedFrame) {
			t.Fatalf("answer to %s: %v", bad, m)
		}
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"after garbage"}}}`)
	if m := recv(); m["id"] != 2.0 || !strings.Contains(fmt.Sprint(m["result"]), "after garbage") {
		t.Fatalf("echo after malformed frames: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":30,"steps":2}}}`)
	time.Sleep(300 * time.Millisecond)
	in.Close()
	outPipe.Close()
	start := time.Now()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the proxy after the client left: %v", err)
	}
	if d := time.Since(start); d > 25*time.Second {
		t.Fatalf("the proxy took %s to stop after the client left", d)
	}
	ps := calls(t, logEvents(t, logDir))
	if len(ps) != 2 || ps[0].exec.Payload.Ext[mcpproxy.ExtOutcome] != "ok" || ps[1].exec.Payload.Ext[mcpproxy.ExtOutcome] != "abandoned" {
		t.Fatalf("recorded calls: %+v", ps)
	}
}

// TestSIGTERMAfterClientLeft: a client that closes the proxy's input and
// then stops it with SIGTERM (as the MCP Inspector does, SIGKILL 2 s
// later) has the server stopped at once, not after the grace the client's
// leaving gives a server: with a grace of an hour, Stdio returns only if
// the server got SIGTERM when ctx ended.
func TestSIGTERMAfterClientLeft(t *testing.T) {
	defer func(g time.Duration) { mcpproxy.StopGrace = g }(mcpproxy.StopGrace)
	mcpproxy.StopGrace = time.Hour
	eof := filepath.Join(t.TempDir(), "eof")
	if err := syscall.Mkfifo(eof, 0o600); err != nil {
		t.Fatal(err)
	}
	// A server that outlives its input's end, says so, and exits on SIGTERM.
	server := exec.Command("sh", "-c", `trap 'exit 0' TERM; cat >/dev/null; echo eof >"$0"; while :; do sleep 1 & wait $!; done`, eof)
	r := logtest.Open(t, filepath.Join(t.TempDir(), "log"), recorder.Options{Recorder: "mcp-test"})
	p := mcpproxy.New(mcpproxy.Options{Recorder: r, Log: os.Stderr})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clientIn, clientW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- p.Stdio(ctx, clientIn, io.Discard, server) }()
	clientW.Close()
	if _, err := os.ReadFile(eof); err != nil { // blocks until the server saw its input end
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Stdio after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		server.Process.Kill()
		t.Fatal("the server was not stopped when ctx ended during the grace after the client left")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
