package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/agentflightrecorder/afr/otlp"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/replica"
)

// DefaultListen is where the daemon listens unless told otherwise.
const DefaultListen = "127.0.0.1:8787"

// TokenFile is the default token file's name in the log directory.
const TokenFile = "serve.token"

// Config configures a daemon.
type Config struct {
	// Dir is the log directory; Recorder the options it is opened with.
	Dir      string
	Recorder recorder.Options
	// Listen is the TCP address (default DefaultListen); one that is not
	// loopback needs AllowRemote.
	Listen      string
	AllowRemote bool
	// TokenFile holds the bearer token (default Dir/serve.token), created
	// when absent.
	TokenFile string
	Limits    Limits
	// Anchor, when set, anchors the log's epochs in the daemon.
	Anchor *Anchoring
	// OTLP, when set, also serves the OTLP/HTTP trace receiver (package
	// otlp: POST /v1/traces, OpenTelemetry GenAI spans as events) into the
	// same log, on its own address (the OTLP convention is port 4318); the
	// same loopback rule applies to it, and it takes the API's bearer token
	// (its Options.Token is replaced by it).
	OTLP *OTLP
	// Replica, when set, copies the log to its replica in object storage
	// as it grows (package replica), beside the recorder: nothing the
	// recorder does waits for it.
	Replica *Replication
	// Logf receives what the daemon reports (default: discarded).
	Logf func(format string, args ...any)
}

// Replication is the replica the daemon copies the log to.
type Replication struct {
	Store   *replica.Store
	Options replica.Options
	// CloseTimeout bounds how long shutdown waits for the last epoch to
	// be copied (default 1 minute); what is left is copied by the next
	// replicator of the log.
	CloseTimeout time.Duration
}

// Anchoring runs an anchorer in the daemon, fed by the recorder's Sealed
// channel as afr anchor --follow feeds it. The daemon links no chain
// client: Open builds the anchorer (an *anchor.Anchorer) once the log is
// open.
type Anchoring struct {
	// Open opens the anchorer of the log in dir; position reports where the
	// log stands (recorder.Recorder.Position).
	Open func(ctx context.Context, dir string, position func() recorder.Position) (Anchorer, error)
	// DrainTimeout bounds how long shutdown waits for the last epochs to
	// be confirmed (default 1 minute); what is left stays in the log's
	// anchor queue, which the next anchor.Open of the log resumes.
	DrainTimeout time.Duration
}

// Anchorer is what the daemon needs of an anchorer (*anchor.Anchorer has
// it): Run until ctx ends on the sealed epochs, the unanchored window for
// /v1/status, and, at shutdown, SyncLog (queue every sealed epoch), Drain
// (wait until they are confirmed) and Close.
type Anchorer interface {
	Run(ctx context.Context, sealed <-chan recorder.SealedEpoch) error
	Window() recorder.AnchorWindow
	SyncLog() (int, error)
	Drain(ctx context.Context) error
	Close()
}

// Daemon is a running recorder daemon: the log's one writer and its HTTP
// API.
type Daemon struct {
	cfg        Config
	rec        *recorder.Recorder
	handler    *Handler
	srv        *http.Server
	ln         net.Listener
	served     chan error
	otlpSrv    *http.Server // nil without Config.OTLP
	otlpLn     net.Listener
	token      string
	created    bool
	anchorer   Anchorer
	replicator *replica.Replicator // nil without Config.Replica
	stopRun    context.CancelFunc
	ran        chan error
}

// OTLP configures the daemon's OTLP/HTTP receiver.
type OTLP struct {
	Listen  string
	Options otlp.Options
}

// Start opens the log (taking its writer lock: another writer makes it
// fail with *recorder.LockedError), reads or creates the token, starts the
// anchorer if configured and serves the API.
func Start(ctx context.Context, cfg Config) (*Daemon, error) {
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.TokenFile == "" {
		cfg.TokenFile = filepath.Join(cfg.Dir, TokenFile)
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if err := CheckListen(cfg.Listen, cfg.AllowRemote); err != nil {
		return nil, err
	}
	if cfg.OTLP != nil {
		if err := CheckListen(cfg.OTLP.Listen, cfg.AllowRemote); err != nil {
			return nil, fmt.Errorf("OTLP receiver: %w", err)
		}
	}
	rec, err := recorder.Open(cfg.Dir, cfg.Recorder)
	if err != nil {
		return nil, err
	}
	d := &Daemon{cfg: cfg, rec: rec, served: make(chan error, 1)}
	fail := func(err error) (*Daemon, error) {
		if d.ln != nil {
			d.ln.Close()
		}
		if d.anchorer != nil {
			d.stopRun()
			<-d.ran
			d.anchorer.Close()
		}
		if d.replicator != nil {
			d.replicator.Close(ctx)
		}
		return nil, errors.Join(err, rec.Close())
	}
	if d.token, d.created, err = LoadOrCreateToken(cfg.TokenFile); err != nil {
		return fail(err)
	}
	var window func() recorder.AnchorWindow
	if a := cfg.Anchor; a != nil {
		an, err := a.Open(ctx, cfg.Dir, rec.Position)
		if err != nil {
			// an may be a typed nil (a nil *anchor.Anchorer): never keep it.
			return fail(err)
		}
		d.anchorer = an
		runCtx, stop := context.WithCancel(context.Background())
		d.stopRun, d.ran = stop, make(chan error, 1)
		go func() {
			err := d.anchorer.Run(runCtx, rec.Sealed())
			if err != nil && runCtx.Err() == nil {
				cfg.Logf("anchoring stopped: %v (recording goes on; the epochs stay queued in the log directory for the next anchorer)", err)
			}
			d.ran <- err
		}()
		window = d.anchorer.Window
	}
	if d.ln, err = net.Listen("tcp", cfg.Listen); err != nil {
		return fail(fmt.Errorf("serve: %w", err))
	}
	if o := cfg.OTLP; o != nil {
		if d.otlpLn, err = net.Listen("tcp", o.Listen); err != nil {
			return fail(fmt.Errorf("serve: OTLP receiver: %w", err))
		}
		oo := o.Options
		oo.Token = d.token
		var ln net.Listener
		d.otlpSrv, ln = server(otlp.NewHandler(rec, oo), d.otlpLn, cfg.Limits, nil, cfg.Logf)
		go func() {
			if err := d.otlpSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				cfg.Logf("OTLP receiver stopped: %v", err)
			}
		}()
	}
	if rc := cfg.Replica; rc != nil {
		o := rc.Options
		if o.Logf == nil {
			o.Logf = cfg.Logf
		}
		if d.replicator, err = replica.Start(ctx, cfg.Dir, rc.Store, o); err != nil {
			return fail(err)
		}
	}
	d.handler = NewHandler(rec, cfg.Dir, d.token, cfg.Limits, window)
	if d.replicator != nil {
		d.handler.replica = d.replicator.Status
	}
	var ln net.Listener
	d.srv, ln = server(d.handler, d.ln, d.handler.limits, d.handler, cfg.Logf)
	go func() { d.served <- d.srv.Serve(ln) }()
	return d, nil
}

// server is an HTTP server of h on ln with the timeouts and the
// connection cap of limits; api, when not nil, is given the connections
// for its fair queue and /v1/status.
func server(h http.Handler, ln net.Listener, limits Limits, api *Handler, logf func(string, ...any)) (*http.Server, net.Listener) {
	limits.setDefaults()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: limits.ReadHeaderTimeout, IdleTimeout: limits.IdleTimeout}
	c := newConns(limits.MaxConns, logf)
	c.serve(srv)
	if api != nil {
		api.conns = c
	}
	return srv, c.listener(ln)
}

// OTLPAddr is the address of the OTLP receiver, nil without one.
func (d *Daemon) OTLPAddr() net.Addr {
	if d.otlpLn == nil {
		return nil
	}
	return d.otlpLn.Addr()
}

// Addr is the address the API listens on.
func (d *Daemon) Addr() net.Addr { return d.ln.Addr() }

// Token is the bearer token; TokenFile where it is kept and TokenCreated
// whether this start created it.
func (d *Daemon) Token() string                { return d.token }
func (d *Daemon) TokenFile() string            { return d.cfg.TokenFile }
func (d *Daemon) TokenCreated() bool           { return d.created }
func (d *Daemon) Recorder() *recorder.Recorder { return d.rec }

// Done delivers the error that stopped the HTTP server on its own.
func (d *Daemon) Done() <-chan error { return d.served }

// Shutdown stops accepting requests, lets those in flight finish (until ctx
// ends), seals the open epoch and closes the recorder; with anchoring it
// then waits up to Anchoring.DrainTimeout for the remaining epochs to be
// confirmed. Only a failure to close the log, or an anchoring run that
// ended in error, is an error: epochs left unanchored are reported through
// Logf and stay queued for the next anchorer of the log.
func (d *Daemon) Shutdown(ctx context.Context) error {
	err := d.srv.Shutdown(ctx)
	if err != nil {
		err = fmt.Errorf("serve: requests still in flight at shutdown: %w", err)
	}
	if d.otlpSrv != nil {
		if oerr := d.otlpSrv.Shutdown(ctx); oerr != nil {
			err = errors.Join(err, fmt.Errorf("serve: OTLP requests still in flight at shutdown: %w", oerr))
		}
	}
	if cerr := d.rec.Close(); cerr != nil {
		return errors.Join(err, cerr)
	}
	p := d.rec.Position()
	d.cfg.Logf("log closed: %d events, %d sealed epochs", p.Next, p.OpenEpoch)
	if d.replicator != nil {
		timeout := d.cfg.Replica.CloseTimeout
		if timeout <= 0 {
			timeout = time.Minute
		}
		rctx, cancel := context.WithTimeout(context.Background(), timeout)
		if rerr := d.replicator.Close(rctx); rerr != nil {
			d.cfg.Logf("the replica %s is behind the log: %v; the next replicator of the log copies the rest", d.cfg.Replica.Store.URL(), rerr)
		}
		cancel()
	}
	if d.anchorer == nil {
		return err
	}
	defer d.anchorer.Close()
	if _, serr := d.anchorer.SyncLog(); serr != nil {
		err = errors.Join(err, serr)
	}
	timeout := d.cfg.Anchor.DrainTimeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	dctx, cancel := context.WithTimeout(context.Background(), timeout)
	derr := d.anchorer.Drain(dctx)
	cancel()
	d.stopRun()
	if rerr := <-d.ran; rerr != nil && !errors.Is(rerr, context.Canceled) {
		return errors.Join(err, rerr)
	}
	if w := d.anchorer.Window(); derr != nil || w.Epochs > 0 {
		d.cfg.Logf("%d epochs (%d events) not yet anchored; they stay queued in %s for the next anchorer of the log", w.Epochs, w.Events, d.cfg.Dir)
	}
	return err
}

// Run starts a daemon, calls ready with it, serves until ctx ends and
// shuts down, giving in-flight requests up to grace to finish.
func Run(ctx context.Context, cfg Config, grace time.Duration, ready func(*Daemon)) error {
	d, err := Start(ctx, cfg)
	if err != nil {
		return err
	}
	if ready != nil {
		ready(d)
	}
	var served error
	select {
	case <-ctx.Done():
	case served = <-d.Done():
		served = fmt.Errorf("serve: %w", served)
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	return errors.Join(served, d.Shutdown(sctx))
}
