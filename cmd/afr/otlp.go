package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentflightrecorder/afr/internal/loopback"
	"github.com/agentflightrecorder/afr/otlp"
	"github.com/agentflightrecorder/afr/serve"
)

func init() {
	register(&command{name: "otlp", summary: "receive OpenTelemetry GenAI spans (OTLP/HTTP) into a log", run: runOTLP, usage: `
Usage: afr otlp --log DIR [--listen 127.0.0.1:4318] [flags]

Serves an OTLP/HTTP trace receiver at http://ADDR/v1/traces (protobuf or
JSON, gzip allowed) and records the spans it receives into the log in DIR,
creating it if needed (--recorder is then required). Point any OpenTelemetry
SDK at it without changing the agent's code:

  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:4318/v1/traces

Spans following the OpenTelemetry GenAI semantic conventions become events:
execute_tool → a tool_call (tool, arguments, status, duration, the result
in execution.output); chat, text_completion, generate_content, embeddings →
a response with the output text in content, or an observation (model, token
usage, finish reasons); invoke_agent, create_agent, invoke_workflow,
retrieval → a context observation. Each event's run is the service.name and
its id the trace and span ids. A span's parent becomes the event's context
parent: by seq when it was recorded first, else by id (context.parent_ids),
which afr query --causal resolves whatever the arrival order. docs/OTEL.md
has the whole mapping and what is kept and dropped.

A request is answered only once its events are durable. Malformed bodies get
400, bodies over --max-body 413, other content types 415; spans that cannot
become events are counted in the answer's partial_success. What a web page
could send is refused with 403: a request to loopback naming another host
(DNS rebinding) and a cross-origin browser request. With --token-file
(created, mode 0600, if absent) every request needs the header
"Authorization: Bearer TOKEN", which exporters send when given

  OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20TOKEN

and get 401 without. It runs until interrupted (Ctrl-C, SIGTERM), then
finishes the requests under way, seals the open epoch and closes the log.

Examples:
  afr otlp --log ./afr-log --recorder ops-1
  afr otlp --log ./afr-log --token-file ./afr-log/otlp.token
  afr otlp --log ./afr-log --listen 127.0.0.1:0 --keep-unknown=false`})
}

func runOTLP(e *env, args []string) error {
	fs := commands["otlp"].flags(e)
	dir := openFlags(fs)
	wf := writerFlags(fs)
	listen := fs.String("listen", "127.0.0.1:4318", "address to serve OTLP/HTTP on (port 0 picks a free one)")
	keepUnknown := fs.Bool("keep-unknown", true, "record spans without a GenAI operation as context observations (false: acknowledge and drop them)")
	maxBody := fs.Int64("max-body", otlp.DefaultMaxBodyBytes, "largest request body in bytes, as sent and decompressed")
	tokenFile := fs.String("token-file", "", "require the bearer token in this file, created (0600) if absent")
	addrFile := fs.String("addr-file", "", "write the address listened on to this file once receiving (for --listen with port 0)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q (afr otlp takes flags only)", fs.Arg(0))}
	}
	if *maxBody <= 0 {
		return usageError{fmt.Sprintf("--max-body %d: want a positive number of bytes", *maxBody)}
	}
	var token string
	if *tokenFile != "" {
		var created bool
		var err error
		if token, created, err = serve.LoadOrCreateToken(*tokenFile); err != nil {
			return err
		}
		if created {
			fmt.Fprintf(e.stderr, "afr otlp: created the bearer token file %s (mode 0600)\n", *tokenFile)
		}
	}
	r, err := wf.open(e, *dir)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return errors.Join(fmt.Errorf("--listen %s: %w", *listen, err), r.Close())
	}
	if !loopback.IsLoopback(ln.Addr().String()) && token == "" {
		fmt.Fprintf(e.stderr, "afr otlp: warning: listening on %s, beyond this machine, with no authentication (hint: --token-file)\n", ln.Addr())
	}
	mux := http.NewServeMux()
	mux.Handle(otlp.TracesPath, otlp.NewHandler(r, otlp.Options{MaxBodyBytes: *maxBody, KeepUnknown: *keepUnknown, Token: token}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(e.stdout, "afr otlp: receiving traces at http://%s%s into %s\n", ln.Addr(), otlp.TracesPath, *dir)
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
			fmt.Fprintf(e.stderr, "afr otlp: writing --addr-file: %v\n", err)
		}
	}
	select {
	case <-ctx.Done():
		err = nil
	case err = <-served:
	}
	shut, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = errors.Join(err, srv.Shutdown(shut), r.Close())
	if err == nil {
		fmt.Fprintf(e.stdout, "afr otlp: stopped; %d events in the log, open epoch sealed\n", r.Position().Next)
	}
	return err
}
