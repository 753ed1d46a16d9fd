package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/otlp"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/serve"
)

func init() {
	register(&command{name: "serve", summary: "run the recorder daemon: a log's one writer behind a local HTTP API", run: runServe, usage: `
Usage: afr serve --log DIR [flags]

Opens the log in DIR (creating it if needed: --recorder is then required) and
stays its one writer, serving a local HTTP API that agents in any language
call (docs/SERVE.md):

  POST /v1/events          one event in the event JSON of docs/SPEC.md
  POST /v1/events:batch    a JSON array of events, or one event per line
  GET  /v1/status          position, sealed epochs, anchoring window
  GET  /v1/proof/{seq}     the inclusion proof of a sealed event

Appends answer with the receipts ({"seq","clock","epoch","digest"}; the
digest is the event id) once the events are durable under --sync. A bad
event gets 400 naming it and what is wrong, and nothing of that request is
recorded; the daemon goes on serving. Every request needs the header
"Authorization: Bearer TOKEN", TOKEN being the content of --token-file,
created (mode 0600) on the first start. Only loopback addresses are
accepted without --allow-remote. What a web page could send gets 403: a
request to loopback naming another host (DNS rebinding) and a cross-origin
browser request. The --otlp receiver takes the same token (exporters send
it with OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20TOKEN).

Idle connections, slow bodies and batch writers cannot lock others out: a
request's headers, body, answer and a connection's idle time are bounded
(--read-header-timeout, --read-timeout, --write-timeout, --idle-timeout),
connections are capped (--max-conns: a new one closes the longest idle),
bodies held at once too (--max-bodies), and appends wait for a slot
(--max-inflight) in a queue that serves a one-event client ahead of
connections sending big batches, shedding the heaviest with 429.

If a write fails (disk full, I/O error), or the log directory or its files
are removed or replaced, the recorder fails: appends get 503, /v1/status
shows the failure, and the daemon exits 1 when stopped. Receipts are given
only for durable events; the events not yet durable were removed from the
log, to be sent again once the daemon is restarted.

While it runs no other writer can open the log: afr record and a second
afr serve fail at once, naming this process. On SIGINT or SIGTERM it stops
accepting requests, finishes those in flight, seals the open epoch and
closes the log, then exits 0.

With --deployment (or --chain or --rpc with --contract) and --key it also
anchors each sealed epoch as afr anchor --follow does, reports the
unanchored window in /v1/status, and at shutdown waits up to --drain for
the last epochs; what is left stays queued for afr anchor. With
--max-window it refuses appends (503 with Retry-After, nothing recorded)
while the unanchored window has reached its bound, so that a compromise of
this host can rewrite at most that much unanchored history.

With --replica s3://BUCKET/PREFIX it also copies the log to object storage
as afr replicate does (at every sealed epoch, or with --replica-every commit
at every group commit; the --replica-* flags are afr replicate's), reports
the replica's lag in /v1/status, and at shutdown copies the last epoch.
Recording never waits for the copy.

Examples:
  afr serve --log ./afr-log --recorder ops-1
  curl -s -H "Authorization: Bearer $(cat ./afr-log/serve.token)" \
    -d '{"tool":"shell","kind":"tool_call","payload":{"intent":{"tool":"shell","args":{"cmd":"ls"}}}}' \
    http://127.0.0.1:8787/v1/events
  afr serve --log ./afr-log --deployment deployment.json --key operator.key
  afr serve --log ./afr-log --replica s3://audit/agents/ops-1`})
}

// parseMaxWindow reads --max-window: an event count, a duration, or both
// separated by a comma. An event bound must exceed the epoch size, or the
// open epoch alone would stop appends before it seals.
func parseMaxWindow(s string, epochSize int) (recorder.WindowLimit, error) {
	var l recorder.WindowLimit
	if s == "" {
		return l, nil
	}
	for _, part := range strings.Split(s, ",") {
		if n, err := strconv.ParseUint(part, 10, 64); err == nil && n > 0 && l.Events == 0 {
			l.Events = n
			continue
		}
		if d, err := time.ParseDuration(part); err == nil && d > 0 && l.Age == 0 {
			l.Age = d
			continue
		}
		return l, fmt.Errorf("%q is not a positive event count or duration (given once each), e.g. 10000, 1m or 10000,1m", part)
	}
	if size := max(epochSize, 0); l.Events > 0 && l.Events <= uint64(size) {
		return l, fmt.Errorf("%d events is not more than an epoch (%d events): appends would stop before the open epoch seals", l.Events, size)
	}
	return l, nil
}

func runServe(e *env, args []string) error {
	fs := commands["serve"].flags(e)
	dir := openFlags(fs)
	rf := writerFlags(fs)
	epochAge := fs.Duration("epoch-age", 30*time.Second, "seal a non-empty epoch this long after its first event")
	listen := fs.String("listen", serve.DefaultListen, "TCP address of the API")
	allowRemote := fs.Bool("allow-remote", false, "allow a --listen address that is not loopback")
	tokenFile := fs.String("token-file", "", "bearer token file, created (0600) if absent (default DIR/serve.token)")
	addrFile := fs.String("addr-file", "", "write the address listened on to this file once serving (for --listen with port 0)")
	maxBody := fs.Int64("max-body", 1<<20, "largest request body in bytes (413 past it)")
	maxBodies := fs.Int64("max-bodies", 64<<20, "bytes of request bodies held at once (503 past it)")
	maxInflight := fs.Int("max-inflight", 64, "appends and proofs served at once; others wait in a queue fair between connections")
	maxQueued := fs.Int("max-queued", 256, "requests waiting for a slot; past it the heaviest connection's gets 429")
	maxConns := fs.Int("max-conns", 1024, "open connections; past it a new one closes the longest idle (503 if none is idle)")
	readHeaderTimeout := fs.Duration("read-header-timeout", 5*time.Second, "time limit for a request's headers")
	readTimeout := fs.Duration("read-timeout", 10*time.Second, "time limit for a request's body (408 past it)")
	idleTimeout := fs.Duration("idle-timeout", 30*time.Second, "how long a connection may wait between requests")
	writeTimeout := fs.Duration("write-timeout", 10*time.Second, "time limit for writing an answer")
	timeout := fs.Duration("timeout", 30*time.Second, "time limit of a request once its body is read: the wait for a slot and for durability")
	grace := fs.Duration("grace", 30*time.Second, "at shutdown, how long requests in flight may take to finish")
	cf := addChainFlags(fs)
	keyFile := addKeyFlag(fs)
	conf := fs.Uint64("confirmations", 2, "blocks deep (counting the anchor's own) before an epoch counts as anchored")
	drain := fs.Duration("drain", time.Minute, "at shutdown, how long to wait for the last epochs to be anchored")
	maxWindow := fs.String("max-window", "", "with anchoring, refuse appends (503, Retry-After) while the unanchored window holds this many events (more than --epoch-size) and/or its oldest sealed epoch waits this long for its anchor: N, DURATION or N,DURATION, e.g. 10000,1m")
	replicaURL := fs.String("replica", "", "also copy the log to its replica in object storage, s3://BUCKET/PREFIX (see afr help replicate)")
	repf := addReplicaFlags(fs, "replica-")
	otlpAddr := fs.String("otlp", "", "also receive OpenTelemetry traces (OTLP/HTTP POST /v1/traces, GenAI spans as events; see afr help otlp) on this address, e.g. 127.0.0.1:4318")
	if err := parse(fs, args); err != nil {
		return err
	}
	opts, err := rf.options(*dir)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"no arguments expected (events come over HTTP)"}
	}
	opts.EpochMaxAge = *epochAge
	if *epochAge <= 0 {
		opts.EpochMaxAge = -1
	}
	if err := serve.CheckListen(*listen, *allowRemote); err != nil {
		return usageError{withHint(err)}
	}
	limit, err := parseMaxWindow(*maxWindow, opts.EpochSize)
	if err != nil {
		return usageError{"--max-window: " + err.Error()}
	}
	if !limit.IsZero() && !cf.given() {
		return usageError{"--max-window bounds what the daemon's anchorer has not anchored: it needs --deployment (or --chain or --rpc with --contract) and --key"}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(f string, a ...any) { fmt.Fprintf(e.stderr, "afr serve: "+f+"\n", a...) }
	cfg := serve.Config{Dir: *dir, Recorder: opts, Listen: *listen, AllowRemote: *allowRemote, TokenFile: *tokenFile,
		Limits: serve.Limits{MaxBody: *maxBody, MaxBodies: *maxBodies, MaxInFlight: *maxInflight, MaxQueued: *maxQueued, MaxConns: *maxConns,
			ReadHeaderTimeout: *readHeaderTimeout, ReadTimeout: *readTimeout, IdleTimeout: *idleTimeout, WriteTimeout: *writeTimeout, Timeout: *timeout,
			MaxWindow: limit}, Logf: logf}
	if *otlpAddr != "" {
		cfg.OTLP = &serve.OTLP{Listen: *otlpAddr, Options: otlp.Options{KeepUnknown: true}}
	}
	if *replicaURL != "" {
		s, ro, err := repf.store(*replicaURL)
		if err != nil {
			return err
		}
		ro.KeyDir = opts.KeyDir
		cfg.Replica = &serve.Replication{Store: s, Options: ro}
	}
	var anchorNote string // what the daemon anchors to, for its first lines
	if cf.given() {
		t, dep, err := cf.deployment()
		if err != nil {
			return err
		}
		key, err := readKey(*keyFile)
		if err != nil {
			return err
		}
		b, err := cf.dial(ctx, t, key)
		if err != nil {
			return err
		}
		defer b.Close()
		ao := anchor.Options{Contract: dep.EpochAnchor, FromBlock: dep.Block, Key: key, Confirmations: *conf, Logf: func(f string, a ...any) { logf(f, a...) }}
		client := b.Client()
		anchorNote = fmt.Sprintf("anchoring sealed epochs to %s as %s", ao.Contract, chain.Address(key))
		cfg.Anchor = &serve.Anchoring{DrainTimeout: *drain, Open: func(ctx context.Context, dir string, position func() recorder.Position) (serve.Anchorer, error) {
			ao.Position = position
			return anchor.Open(ctx, dir, client, ao)
		}}
	}
	return serve.Run(ctx, cfg, *grace, func(d *serve.Daemon) {
		p := d.Recorder().Position()
		m := d.Recorder().Manifest()
		logf("log %s (recorder %s, %d events, sync %s), listening on http://%s", *dir, m.Recorder, p.Next, opts.Sync, d.Addr())
		if d.TokenCreated() {
			logf("created the bearer token file %s (mode 0600)", d.TokenFile())
		} else {
			logf("bearer token from %s", d.TokenFile())
		}
		if anchorNote != "" {
			logf("%s", anchorNote)
		}
		if a := d.OTLPAddr(); a != nil {
			logf("receiving OTLP traces at http://%s/v1/traces", a)
		}
		if *addrFile != "" {
			if err := os.WriteFile(*addrFile, []byte(d.Addr().String()+"\n"), 0o644); err != nil {
				logf("writing --addr-file: %v", err)
			}
		}
	})
}
