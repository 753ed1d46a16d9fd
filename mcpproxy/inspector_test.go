package mcpproxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/mcpproxy"
)

// inspectorEnv names the MCP Inspector's launcher (mcp-inspector of
// @modelcontextprotocol/inspector) when it is not the project's
// node_modules/.bin/mcp-inspector.
const inspectorEnv = "AFR_MCP_INSPECTOR"

// inspectorBin returns the MCP Inspector's launcher, or skips the test
// saying what is missing.
func inspectorBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(inspectorEnv); p != "" {
		return npmBin(t, p)
	}
	return npmServer(t, "mcp-inspector")
}

// inspectorStep is one run of the Inspector's CLI mode: a method, with
// the tool and its --tool-arg pairs for tools/call, and what the log must
// then hold (args, failed).
type inspectorStep struct {
	method string
	tool   string
	pairs  []string
	args   map[string]any
	failed bool
}

// inspectorSteps list server-everything's tools, call two with arguments
// and one that fails (get-sum without b: the server answers isError).
var inspectorSteps = []inspectorStep{
	{method: "tools/list"},
	{method: "tools/call", tool: "echo", pairs: []string{"message=through the Inspector"}, args: map[string]any{"message": "through the Inspector"}},
	{method: "tools/call", tool: "get-sum", pairs: []string{"a=2", "b=3"}, args: map[string]any{"a": 2, "b": 3}},
	{method: "tools/call", tool: "get-sum", pairs: []string{"a=2"}, args: map[string]any{"a": 2}, failed: true},
}

// runInspector runs the Inspector's CLI mode with args (its HOME a
// temporary directory, so that no catalog of the user's is read or
// written) and returns what it printed on standard output and its exit
// status.
func runInspector(t *testing.T, bin string, args ...string) ([]byte, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--cli"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("mcp-inspector %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	if ctx.Err() != nil {
		t.Fatalf("mcp-inspector %s did not finish in 2 minutes:\n%s", strings.Join(args, " "), stderr.Bytes())
	}
	return stdout.Bytes(), cmd.ProcessState.ExitCode()
}

// inspectorResult is the part of what the Inspector prints (a tools/list
// or tools/call result, JSON) that the test reads.
type inspectorResult struct {
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// runInspectorSteps runs inspectorSteps, each as one Inspector session
// with the target (the server's command or URL, and options), checks what the Inspector printed and returns
// each call's output text.
func runInspectorSteps(t *testing.T, bin string, target []string) []string {
	t.Helper()
	var outputs []string
	for _, s := range inspectorSteps {
		// The server first: --tool-arg takes every word after it.
		args := append(slices.Clone(target), "--method", s.method)
		if s.tool != "" {
			args = append(args, "--tool-name", s.tool, "--tool-arg")
			args = append(args, s.pairs...)
		}
		out, exit := runInspector(t, bin, args...)
		var res inspectorResult
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("%s %s: the Inspector printed %q: %v", s.method, s.tool, out, err)
		}
		if s.tool == "" {
			var names []string
			for _, tl := range res.Tools {
				names = append(names, tl.Name)
			}
			if !slices.Contains(names, "echo") || !slices.Contains(names, "get-sum") || exit != 0 {
				t.Fatalf("tools/list: exit %d, tools %v", exit, names)
			}
			continue
		}
		if len(res.Content) != 1 || res.Content[0].Type != "text" || res.IsError != s.failed || (exit != 0) != s.failed {
			t.Fatalf("%s %v: exit %d, printed %s", s.tool, s.pairs, exit, out)
		}
		outputs = append(outputs, res.Content[0].Text)
	}
	want := []string{"Echo: through the Inspector", "The sum of 2 and 3 is 5."}
	if !slices.Equal(outputs[:2], want) || !strings.Contains(outputs[2], "Invalid arguments for tool get-sum") {
		t.Fatalf("the Inspector printed %q, want %q and get-sum's validation error", outputs, want)
	}
	return outputs
}

// checkInspectorLog checks that the log in logDir verifies and holds each
// of the Inspector's calls as an intent (tool, arguments) caused by its
// session's tools/list observation and an execution with the output text
// the Inspector printed and the call's status.
func checkInspectorLog(t *testing.T, logDir string, outputs []string) {
	t.Helper()
	evs := logEvents(t, logDir)
	lists := map[uint64]bool{} // the tools/list observations, by seq
	for _, ev := range evs {
		lists[ev.Seq] = ev.Envelope.Kind == format.KindObservation && ev.Payload.Ext[mcpproxy.ExtMethod] == "tools/list"
	}
	ps := calls(t, evs)
	var steps []inspectorStep
	for _, s := range inspectorSteps {
		if s.tool != "" {
			steps = append(steps, s)
		}
	}
	if len(ps) != len(steps) {
		t.Fatalf("%d recorded calls, want %d", len(ps), len(steps))
	}
	for i, s := range steps {
		in, ex := ps[i].intent, ps[i].exec
		if in.Payload.Intent.Tool != s.tool || fmt.Sprint(in.Payload.Intent.Args) != fmt.Sprint(s.args) {
			t.Errorf("call %d: intent %s %v, want %s %v", i, in.Payload.Intent.Tool, in.Payload.Intent.Args, s.tool, s.args)
		}
		if len(in.Payload.Context.Parents) != 1 || !lists[in.Payload.Context.Parents[0]] {
			t.Errorf("call %d: intent's parents %v, want its session's tools/list observation", i, in.Payload.Context.Parents)
		}
		status, outcome := format.StatusOK, "ok"
		if s.failed {
			status, outcome = format.StatusFailed, "tool_error"
		}
		x := ex.Payload.Execution
		if recordedOutput(ex) != outputs[i] || x.Status != status || ex.Payload.Ext[mcpproxy.ExtOutcome] != outcome || x.Start == 0 || x.End < x.Start {
			t.Errorf("call %d: execution %+v, ext %v; want status %s, outcome %s, output %q", i, x, ex.Payload.Ext, status, outcome, outputs[i])
		}
	}
}

// TestInspectorStdio: the MCP Inspector's CLI mode launches the proxy as
// its server command (the proxy launching server-everything), once per
// step; what it prints is the server's answer and the log, written by
// each session in turn, verifies and holds every call.
func TestInspectorStdio(t *testing.T) {
	bin := inspectorBin(t)
	server := npmServer(t, "mcp-server-everything")
	logDir := filepath.Join(t.TempDir(), "log")
	cfg, err := json.Marshal(childConfig{Log: logDir, Server: []string{server}})
	if err != nil {
		t.Fatal(err)
	}
	// The Inspector gives its server only a default environment and -e's.
	outputs := runInspectorSteps(t, bin, []string{"-e", childEnv + "=" + string(cfg), os.Args[0]})
	checkInspectorLog(t, logDir, outputs)
}

// TestInspectorHTTP: the MCP Inspector's CLI mode connects to the proxy's
// streamable-HTTP endpoint in front of server-everything's; one proxy
// records the Inspector's sessions, and the log verifies and holds every
// call.
func TestInspectorHTTP(t *testing.T) {
	bin := inspectorBin(t)
	url, logDir, stop := httpProxy(t, everythingHTTP(t))
	outputs := runInspectorSteps(t, bin, []string{"--transport", "http", "--server-url", url + "/mcp"})
	stop()
	checkInspectorLog(t, logDir, outputs)
}
