package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/agentflightrecorder/afr/mcpproxy"
)

func init() {
	register(&command{name: "mcp-proxy", summary: "record an MCP server's tool calls (the client launches afr mcp-proxy -- SERVER…)", run: runMCPProxy, usage: `
Usage: afr mcp-proxy (--log DIR | --serve URL --token-file FILE) [flags] -- COMMAND [ARGS...]

Sits between an MCP client and an MCP server on standard input and output:
the client launches afr mcp-proxy in place of the server, and the proxy
launches COMMAND (the real server) and relays every JSON-RPC frame in both
directions unchanged: notifications, progress and cancellation pass through
untouched.

What is recorded into the log in DIR (docs/MCP.md):
  initialize   an observation: the server's name and version, protocol version
  tools/list   an observation: the tool names and the digest of the answer
  tools/call   an intent (tool, arguments) when the request passes, and an
               execution (ok or failed, start and end, output text up to
               --max-output bytes, else its digest; file_write effects of the
               filesystem server's write_file, edit_file and move_file) caused
               by the intent, recorded durably before the answer is forwarded

With --policy FILE, every tools/call is decided first (a policy event): a
denied call, or one that needs approval, never reaches the server and the
client gets a JSON-RPC error saying why. A call that cannot be recorded is not
forwarded either.

The server exiting while the client is connected answers the calls in
flight with an error and exits 1; the client leaving records the calls in
flight as abandoned (outcome unknown), stops the server and exits 0.
Malformed frames from either side are reported on standard error and not
forwarded. The server's standard error goes to the proxy's.

When afr serve holds the log, write through it instead: --serve URL
--token-file LOG/serve.token in place of --log (never both: the daemon is
the log's one writer).

Example (the command an MCP client is configured to run):
  afr mcp-proxy --log ~/afr-mcp --recorder me -- npx -y @modelcontextprotocol/server-filesystem /tmp/x`})
}

func runMCPProxy(e *env, args []string) error {
	fs := commands["mcp-proxy"].flags(e)
	dir := openFlags(fs)
	wf := writerFlags(fs)
	df := addDaemonFlags(fs)
	policyFile := fs.String("policy", "", "policy file (JSON, docs/MCP.md) deciding every tools/call")
	approveAll := fs.Bool("approve-all", false, "approve every call the policy asks approval for (tests only)")
	maxOutput := fs.Int("max-output", mcpproxy.DefaultMaxOutput, "bytes of a tool's output text kept in the log; longer output is kept as its digest")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{"the server command is missing: afr mcp-proxy --log DIR -- COMMAND [ARGS...]"}
	}
	var policy *mcpproxy.Policy
	if *policyFile != "" {
		var err error
		if policy, err = mcpproxy.ReadPolicy(*policyFile); err != nil {
			return err
		}
	}
	r, err := df.writer(e, wf, *dir)
	if err != nil {
		return err
	}
	// A client that goes away must not kill the proxy with SIGPIPE before
	// it records what was in flight: writes then fail with EPIPE instead.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	p := mcpproxy.New(mcpproxy.Options{Recorder: r, Policy: policy, ApproveAll: *approveAll, Log: e.stderr, MaxOutput: *maxOutput})
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Stderr = e.stderr
	// SIGTERM or an interrupt ends the session as the client leaving does.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	runErr := p.Stdio(ctx, e.stdin, e.stdout, cmd)
	return errors.Join(runErr, r.Close())
}
