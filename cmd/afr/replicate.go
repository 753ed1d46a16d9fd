package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/replica"
)

func init() {
	register(&command{name: "replicate", summary: "copy a log to S3-compatible object storage as it grows", run: runReplicate, usage: `
Usage: afr replicate --log DIR [flags] s3://BUCKET[/PREFIX]

Copies the log in DIR — MANIFEST, records, payloads (encrypted as on disk)
and epoch headers, and with --batches and --anchors the operator's batches
file and an anchors file; never keys unless --keys-to — to object storage,
and keeps copying as the log grows until interrupted (SIGINT, SIGTERM), or
once with --once.
The replica is a log: afr verify, query, report and disclose read
s3://BUCKET/PREFIX wherever they take a log directory.

Every object is written once, with If-None-Match: * (docs/SPEC.md,
"Replica"): what was copied is never replaced, and a restarted replicator
resumes where the replica ends, after checking that the log still holds the
bytes it copied. A log that no longer extends its replica (rewritten, cut or
replaced) stops the copy with exit 1 and changes nothing on the replica;
afr verify --log DIR --replica URL then shows where they differ. Only what
the log's durable mark covers is copied: sealed epochs (--every epoch, the
default: each epoch header and the records and payloads it covers), or also
every durable event (--every commit). The writer is never waited for; the
replica's lag is in afr status and the daemon's /v1/status.

The server and keys come from the environment as S3 tools take them
(AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
AWS_SESSION_TOKEN), or from --endpoint and --region. --retain keeps every
object under S3 Object Lock retention for that long (the bucket must have
Object Lock enabled): then not even the keys that wrote it can delete or
replace it. See docs/REPLICA.md for a set-up.

With --keys-to s3://OTHER/PREFIX the key directory (--keys, default
<log>/keys) is copied too, after the log at each look, to a place of its
own that should be reachable with other credentials: the master key once,
and the epoch-salts file whole each time it changes, the copies it
supersedes deleted (and never under --retain), so that a salt erased with
afr erase leaves the copy at the next look. Reading commands take that
place as --keys s3://OTHER/PREFIX.

Examples:
  afr replicate --log ./afr-log s3://audit/agents/ops-1
  AWS_ENDPOINT_URL=http://127.0.0.1:8333 afr replicate --log ./afr-log --once s3://audit/ops-1
  afr replicate --log ./afr-log --every commit --retain 2160h s3://audit/ops-1
  afr replicate --log ./afr-log --keys-to s3://audit-keys/ops-1 s3://audit/ops-1`})
}

// replicaFlags are the flags that reach object storage: afr replicate's
// and afr serve --replica's.
type replicaFlags struct {
	endpoint, region, mode, every, keysTo *string
	retain, interval                      *time.Duration
}

// addReplicaFlags adds the flags, each name after prefix ("" for afr
// replicate, "replica-" for afr serve).
func addReplicaFlags(fs *flag.FlagSet, prefix string) *replicaFlags {
	return &replicaFlags{
		endpoint: fs.String(prefix+"endpoint", "", "S3 endpoint URL (default: $AWS_ENDPOINT_URL, else AWS)"),
		region:   fs.String(prefix+"region", "", "S3 region (default: $AWS_REGION)"),
		every:    fs.String(prefix+"every", "epoch", "copy at every sealed epoch (epoch) or every group commit (commit)"),
		retain:   fs.Duration(prefix+"retain", 0, "S3 Object Lock retention of each object written (e.g. 2160h; 0: none)"),
		mode:     fs.String(prefix+"retain-mode", "GOVERNANCE", "Object Lock mode with --"+prefix+"retain: GOVERNANCE or COMPLIANCE"),
		interval: fs.Duration(prefix+"interval", 200*time.Millisecond, "how often the log is looked at for what to copy"),
		keysTo:   fs.String(prefix+"keys-to", "", "also copy the log's key directory to this other place, s3://BUCKET/PREFIX (default: keys are never copied)"),
	}
}

// store returns the replica at url the flags reach.
func (f *replicaFlags) store(url string) (*replica.Store, replica.Options, error) {
	every, err := replica.ParseEvery(*f.every)
	if err != nil {
		return nil, replica.Options{}, usageError{"--every: " + err.Error()}
	}
	s, err := replica.Dial(url, replica.Config{Endpoint: *f.endpoint, Region: *f.region, Retention: *f.retain, Mode: *f.mode})
	if err != nil {
		return nil, replica.Options{}, err
	}
	opts := replica.Options{Every: every, Interval: *f.interval}
	if *f.keysTo != "" {
		// The keys' store has no retention: an erased salt is to leave it.
		if opts.Keys, err = replica.Dial(*f.keysTo, replica.Config{Endpoint: *f.endpoint, Region: *f.region}); err != nil {
			return nil, replica.Options{}, err
		}
	}
	return s, opts, nil
}

func runReplicate(e *env, args []string) error {
	fs := commands["replicate"].flags(e)
	dir := openFlags(fs)
	rf := addReplicaFlags(fs, "")
	once := fs.Bool("once", false, "copy what the log holds now, then exit")
	batches := fs.String("batches", "", "the operator's batches file, copied with the log")
	anchors := fs.String("anchors", "", "an anchors file, copied with the log")
	keyDir := fs.String("keys", "", "the key directory --keys-to copies (default <log>/keys)")
	jsonOut := fs.Bool("json", false, "write the replica's status at exit as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" || fs.NArg() != 1 {
		return usageError{"--log DIR and one s3://BUCKET/PREFIX are required"}
	}
	s, opts, err := rf.store(fs.Arg(0))
	if err != nil {
		return err
	}
	if *keyDir != "" && opts.Keys == nil {
		return usageError{"--keys names the key directory that --keys-to copies: give --keys-to too"}
	}
	opts.Batches, opts.Anchors, opts.KeyDir = *batches, *anchors, *keyDir
	opts.Logf = func(format string, args ...any) { fmt.Fprintf(e.stderr, "afr replicate: "+format+"\n", args...) }
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var st replica.Status
	if *once {
		if st, err = replica.Once(ctx, *dir, s, opts); err != nil {
			return err
		}
	} else {
		r, err := replica.Start(ctx, *dir, s, opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "afr replicate: copying %s to %s (every %s); interrupt to stop\n", *dir, s.URL(), opts.Every)
		<-ctx.Done()
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err = r.Close(cctx)
		cancel()
		st = r.Status()
		if err != nil {
			return err
		}
	}
	if *jsonOut {
		if err := writeJSON(e.stdout, st); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "%s: %s\n", s.URL(), describeReplica(st))
	}
	if st.Conflict != "" {
		return codeError{code: exitError, err: fmt.Errorf("%s (hint: afr verify --log %s --replica %s shows where they differ)", st.Conflict, *dir, s.URL())}
	}
	return nil
}

// describeReplica says in one line how far a replica is.
func describeReplica(st replica.Status) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d events, %d epochs copied (every %s); lag %d epochs, %d events", st.Events, st.Epochs, st.Every, st.LagEpochs, st.LagEvents)
	if st.BehindSince != nil {
		fmt.Fprintf(&b, ", behind since %s", st.BehindSince.Format(time.RFC3339))
	}
	if st.KeysURL != "" {
		fmt.Fprintf(&b, "; keys copied to %s", st.KeysURL)
	}
	if st.Error != "" {
		fmt.Fprintf(&b, "; last attempt failed: %s", st.Error)
	}
	if st.Conflict != "" {
		fmt.Fprintf(&b, "; STOPPED: %s", st.Conflict)
	}
	return b.String()
}

// replicas are the replicas this process opened, by URL: a command that
// reads a log twice (its id for the chain, then the log) lists it once.
var replicas = map[string]*replica.FS{}

// wholeLog are the commands that read every file of a log: their replica
// is read ahead, all its files at once (replica.FS.Prefetch).
var wholeLog = map[string]bool{"verify": true, "query": true, "report": true, "disclose": true, "proof": true}

// openLog opens the log at dir read-only: a local directory, or a replica
// (s3://bucket/prefix) reached as the environment says. Objects of a
// replica that are no part of the log are reported on stderr (e nil: not
// reported).
func openLog(e *env, cmd, dir string) (*recorder.Log, error) {
	if !replica.IsURL(dir) {
		return recorder.OpenLog(dir)
	}
	f, ok := replicas[dir]
	if !ok {
		s, err := replica.Dial(dir, replica.Config{})
		if err != nil {
			return nil, err
		}
		if f, err = replica.Open(context.Background(), s); err != nil {
			return nil, err
		}
		replicas[dir] = f
	}
	if wholeLog[cmd] {
		f.Prefetch()
	}
	if n := len(f.Strays()); n > 0 && e != nil {
		fmt.Fprintf(e.stderr, "afr %s: warning: %s holds %d objects that are no part of the log (someone else wrote there), first %s\n", cmd, dir, n, f.Strays()[0])
	}
	return recorder.OpenLogFS(f, dir)
}
