package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/agentflightrecorder/afr/internal/loopback"
	"github.com/agentflightrecorder/afr/mcpproxy"
)

func init() {
	register(&command{name: "mcp-proxy", summary: "record an MCP server's tool calls (stdio: afr mcp-proxy -- SERVER…; HTTP: --upstream URL)", run: runMCPProxy, usage: `
Usage: afr mcp-proxy (--log DIR | --serve URL --token-file FILE) [flags] -- COMMAND [ARGS...]
       afr mcp-proxy (--log DIR | --serve URL --token-file FILE) [flags] --upstream URL [--listen ADDR]

Sits between an MCP client and an MCP server on standard input and output:
the client launches afr mcp-proxy in place of the server, and the proxy
launches COMMAND (the real server) and relays every JSON-RPC message in both
directions, re-encoded from what it read and recorded: notifications, progress
and cancellation pass through.

What is recorded into the log in DIR (docs/MCP.md):
  initialize   an observation: the server's name and version, protocol version
  tools/list   an observation: the tool names and the digest of the answer
  tools/call   an intent (tool, arguments) when the request passes, and an
               execution (ok or failed, start and end, output text up to
               --max-output bytes, else its digest; file_write effects of the
               filesystem server's write_file, edit_file and move_file) caused
               by the intent, recorded before the answer is forwarded

The intent is durable (under the log's --sync policy) before its request is
forwarded, so no call reaches the server unrecorded. The execution is
appended before the answer is forwarded and made durable by the group
commit that follows, which the next call's intent waits for: a crash in
between can leave the last calls with an intent and no outcome. With
--await-outcome the answer waits for its execution to be durable too, one
more commit per call (docs/MCP.md, "Durability and latency"); so does
writing through afr serve (--serve), whose receipts come once durable.

With --policy FILE, every tools/call is decided first (a policy event): a
denied call, or one that needs approval, never reaches the server and the
client gets a JSON-RPC error saying why. A call that cannot be recorded is not
forwarded either.

The server exiting while the client is connected answers the calls in
flight with an error and exits 1; the client leaving records the calls in
flight as abandoned (outcome unknown), stops the server and exits 0.
Malformed frames from either side, and messages over --max-message bytes,
are reported on standard error, recorded as refused and not forwarded; an
answer whose result the proxy cannot read reaches the client as an error
(docs/MCP.md, "What the proxy refuses, and why"). The server's standard error
goes to the proxy's.

With --upstream URL (streamable-HTTP mode) the proxy is instead an HTTP
endpoint at --listen (loopback, 127.0.0.1:8931, by default) in front of an
MCP server's streamable-HTTP endpoint URL: the client is configured with
http://ADDR/mcp (any path) in place of URL. Each POST (one JSON-RPC message)
is recorded as above and forwarded; the server's answer, JSON or an event
stream, is relayed event by event, each tools/call answer recorded before it
is forwarded; GET (the server's event stream, resumption with Last-Event-ID)
and DELETE (end of session) pass through. Mcp-Session-Id,
MCP-Protocol-Version, Accept, Content-Type, Last-Event-ID and Authorization
are forwarded. A call whose upstream request fails is answered with an error
and recorded (outcome upstream_failed); a body that is not one JSON-RPC
message gets 400 with a JSON-RPC parse error. SIGTERM or an interrupt stops
the proxy, recording calls still in flight as abandoned.

When afr serve holds the log, write through it instead: --serve URL
--token-file LOG/serve.token in place of --log (never both: the daemon is
the log's one writer).

Examples (the command an MCP client is configured to run; an HTTP proxy):
  afr mcp-proxy --log ~/afr-mcp --recorder me -- npx -y @modelcontextprotocol/server-filesystem /tmp/x
  afr mcp-proxy --log ~/afr-mcp --recorder me --upstream http://127.0.0.1:3001/mcp --listen 127.0.0.1:8931`})
}

func runMCPProxy(e *env, args []string) error {
	fs := commands["mcp-proxy"].flags(e)
	dir := openFlags(fs)
	wf := writerFlags(fs)
	df := addDaemonFlags(fs)
	policyFile := fs.String("policy", "", "policy file (JSON, docs/MCP.md) deciding every tools/call")
	approveAll := fs.Bool("approve-all", false, "approve every call the policy asks approval for (tests only)")
	maxOutput := fs.Int("max-output", mcpproxy.DefaultMaxOutput, "bytes of a tool's output text kept in the log; longer output is kept as its digest")
	maxMessage := fs.Int("max-message", mcpproxy.DefaultMaxMessage, "bytes of the largest JSON-RPC message relayed (a stdio frame, an HTTP body, an event); a larger one is refused and recorded")
	upstream := fs.String("upstream", "", "streamable-HTTP mode: the MCP server's endpoint URL (http://HOST:PORT/mcp) to relay to")
	listen := fs.String("listen", "127.0.0.1:8931", "streamable-HTTP mode: the address the proxy's endpoint listens on")
	awaitOutcome := fs.Bool("await-outcome", false, "forward a tools/call's answer only once its execution event is durable (one more commit per call)")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *upstream != "" && fs.NArg() > 0:
		return usageError{"give either --upstream URL (streamable-HTTP mode) or -- COMMAND (stdio mode), not both"}
	case *upstream == "" && fs.NArg() == 0:
		return usageError{"the server command is missing: afr mcp-proxy --log DIR -- COMMAND [ARGS...], or --upstream URL for a streamable-HTTP server"}
	case *upstream != "":
		if err := mcpproxy.CheckUpstream(*upstream); err != nil {
			return usageError{"--upstream: " + err.Error()}
		}
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
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(mcpproxy.GCPercent)
	}
	opts := mcpproxy.Options{Recorder: r, Policy: policy, ApproveAll: *approveAll, Log: e.stderr, MaxOutput: *maxOutput, MaxMessage: *maxMessage, AwaitOutcome: *awaitOutcome}
	if *upstream != "" {
		h, err := mcpproxy.NewHTTP(*upstream, opts)
		if err != nil {
			return errors.Join(err, r.Close())
		}
		return errors.Join(serveMCPHTTP(e, h, *listen, *upstream), r.Close())
	}
	p := mcpproxy.New(opts)
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Stderr = e.stderr
	// SIGTERM or an interrupt ends the session as the client leaving does.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	runErr := p.Stdio(ctx, e.stdin, e.stdout, cmd)
	return errors.Join(runErr, r.Close())
}

// serveMCPHTTP runs the streamable-HTTP proxy on listen until SIGTERM or
// an interrupt, then stops it (requests in flight get 5 s to finish) and
// records the calls still in flight as abandoned.
func serveMCPHTTP(e *env, h *mcpproxy.HTTP, listen, upstream string) error {
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", listen, err)
	}
	if !loopback.IsLoopback(l.Addr().String()) {
		fmt.Fprintf(e.stderr, "afr mcp-proxy: warning: listening on %s, which is not loopback: anyone who reaches it can call the server's tools (the proxy adds no authentication)\n", l.Addr())
	}
	fmt.Fprintf(e.stderr, "afr mcp-proxy: listening on http://%s/mcp, relaying to %s\n", l.Addr(), upstream)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(l) }()
	select {
	case err = <-serveErr:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if srv.Shutdown(sctx) != nil {
			srv.Close() // event streams that outlive the grace period
		}
		cancel()
		err = nil
	}
	h.Close(context.Background())
	return err
}
