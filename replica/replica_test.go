package replica_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/replica"
	"github.com/agentflightrecorder/afr/replica/s3test"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/minio/minio-go/v7"
)

// env is a server with one bucket, shared by the tests of this file.
type env struct {
	srv    *s3test.Server
	bucket string
	n      int
}

var shared *env

func server(t testing.TB) *env {
	t.Helper()
	if shared == nil {
		// One server for the package's tests: starting weed takes seconds.
		shared = &env{srv: startShared(t), bucket: "replicas"}
	}
	return shared
}

// store returns a new, empty replica on the shared server, reached
// through endpoint when given (a proxy), else directly.
func (e *env) store(t testing.TB, endpoint string) *replica.Store {
	t.Helper()
	e.n++
	cfg := e.srv.Config()
	if endpoint != "" {
		cfg.Endpoint = endpoint
	}
	s, err := replica.Dial(fmt.Sprintf("s3://%s/%s/%d", e.bucket, t.Name(), e.n), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// benchStore returns a new replica on the shared server.
func benchStore(b *testing.B) *replica.Store { return server(b).store(b, "") }

// writeLog writes n events into a new log (epochs of 10) and closes it.
func writeLog(t *testing.T, n int) string {
	t.Helper()
	l := logtest.Write(t, recorder.Options{Recorder: "ops-1", EpochSize: 10, Encrypt: true}, workload.Generate(7, n))
	return l.Dir
}

// sameFiles checks that the replica holds the log's streams and MANIFEST
// byte for byte.
func sameFiles(t *testing.T, dir string, f *replica.FS) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch filepath.Dir(rel) {
		case "records", "payloads", "epochs":
		default:
			if rel != "MANIFEST" {
				return nil
			}
		}
		want, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		got, err := f.ReadFile(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the replica's copy (%d bytes) differs from the log's (%d bytes)", rel, len(got), len(want))
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 4 {
		t.Fatalf("compared %d files", n)
	}
	if s := f.Strays(); len(s) > 0 {
		t.Errorf("strays on the replica: %v", s)
	}
}

// verify verifies log l against anchors and returns the report.
func verify(t *testing.T, l *recorder.Log, anchors []format.Anchor) *verifier.Report {
	t.Helper()
	rep, err := verifier.VerifyLog(context.Background(), l, verifier.AnchorList(anchors), verifier.Options{Payloads: verifier.PayloadsDigest})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// localAnchors are the log's own epoch roots, as its anchorer sends them.
func localAnchors(t *testing.T, dir string) []format.Anchor {
	t.Helper()
	_, as := logtest.Anchors(t, dir)
	return as
}

func openReplica(t *testing.T, s *replica.Store) (*recorder.Log, *replica.FS) {
	t.Helper()
	f, err := replica.Open(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	l, err := recorder.OpenLogFS(f, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	return l, f
}

// A closed log copied once is, on the replica, the same files, and it
// verifies from there against the roots the log had.
func TestOnceCopiesTheLog(t *testing.T) {
	e := server(t)
	dir := writeLog(t, 95)
	s := e.store(t, "")
	st, err := replica.Once(context.Background(), dir, s, replica.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Events != 95 || st.Epochs != 10 || st.LagEpochs != 0 {
		t.Fatalf("status %+v, want 95 events and 10 epochs copied, no lag", st)
	}
	l, f := openReplica(t, s)
	sameFiles(t, dir, f)
	rep := verify(t, l, localAnchors(t, dir))
	if rep.Verdict != verifier.Verified || rep.Events != 95 {
		t.Fatalf("replica: %s, %d events; want verified, 95: %+v", rep.Verdict, rep.Events, rep.Findings)
	}
	// A second pass writes nothing and finds nothing changed.
	if st, err = replica.Once(context.Background(), dir, s, replica.Options{}); err != nil || st.Events != 95 {
		t.Fatalf("second pass: %+v, %v", st, err)
	}
	_, f = openReplica(t, s)
	f.Prefetch() // every file read at once: the same bytes
	sameFiles(t, dir, f)
}

// An object that no longer holds the bytes its listing gave (replaced
// after the replica was opened: longer, shorter) is an error to read, not
// a file of another size.
func TestObjectsHoldTheirListedSize(t *testing.T) {
	e := server(t)
	dir := writeLog(t, 20)
	s := e.store(t, "")
	if _, err := replica.Once(context.Background(), dir, s, replica.Options{}); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(dir, "records"))
	if err != nil || len(ents) == 0 {
		t.Fatalf("records: %v %v", ents, err)
	}
	seg := "records/" + ents[0].Name()
	want, err := os.ReadFile(filepath.Join(dir, seg))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		body []byte
		want string
	}{
		{"longer", append(bytes.Clone(want), 0), "holds more than"},
		{"shorter", want[:len(want)-1], fmt.Sprintf("holds %d bytes, its listing", len(want)-1)},
	} {
		_, f := openReplica(t, s)
		obj := strings.TrimPrefix(s.URL(), "s3://"+e.bucket+"/") + "/" + seg + "/0000000000000000"
		if _, err := e.srv.Client().PutObject(context.Background(), e.bucket, obj, bytes.NewReader(c.body), int64(len(c.body)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.ReadFile(seg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: reading %s gave %v, want an error saying %q", c.name, seg, err, c.want)
		}
	}
}

// The compromise: the host deletes the log after it was copied. The
// replica still verifies against the anchored roots and holds every event.
func TestCompromiseLogDeleted(t *testing.T) {
	e := server(t)
	dir := writeLog(t, 60)
	anchors := localAnchors(t, dir) // what the chain holds
	s := e.store(t, "")
	if _, err := replica.Once(context.Background(), dir, s, replica.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	l, _ := openReplica(t, s)
	rep := verify(t, l, anchors)
	if rep.Verdict != verifier.Verified || rep.Events != 60 || rep.AnchoredEvents != 60 {
		t.Fatalf("replica after deletion: %s, %d events (%d anchored): %+v", rep.Verdict, rep.Events, rep.AnchoredEvents, rep.Findings)
	}
	ix, err := verifier.IndexLog(l, nil)
	if err != nil || ix.Len() != 60 {
		t.Fatalf("index of the replica: %d events, %v", ix.Len(), err)
	}
}

// The compromise: the host rewrites the log from event 30 on (the same
// recorder and session, its own keys: a log that verifies on its own). The
// rewritten log is tampered against its replica's epoch roots, the
// replica verifies, and a replicator refuses to go on.
func TestCompromiseLogRewritten(t *testing.T) {
	e := server(t)
	evs := workload.Generate(7, 60)
	opts := recorder.Options{Recorder: "ops-1", EpochSize: 10}
	dir := t.TempDir()
	record(t, dir, opts, evs[:30])
	base := t.TempDir() + "/log" // the log as it was at event 30, keys included
	if err := os.CopyFS(base, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(base, "keys", "master.key"), 0o600); err != nil {
		t.Fatal(err)
	}
	record(t, dir, opts, evs[30:])
	s := e.store(t, "")
	if _, err := replica.Once(context.Background(), dir, s, replica.Options{}); err != nil {
		t.Fatal(err)
	}
	// The rewrite: the log from event 30 on replaced by other events,
	// written by the recorder with the log's keys.
	record(t, base, opts, workload.Generate(99, 30))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(base, dir); err != nil {
		t.Fatal(err)
	}
	if rep := verify(t, mustOpen(t, dir), localAnchors(t, dir)); rep.Verdict != verifier.Verified {
		t.Fatalf("the forged log against its own roots: %s, want verified (a consistent rewrite)", rep.Verdict)
	}
	replicaLog, _ := openReplica(t, s)
	roots, err := verifier.AnchorsFromLog(replicaLog)
	if err != nil {
		t.Fatal(err)
	}
	rep := verify(t, mustOpen(t, dir), roots)
	if rep.Verdict != verifier.Tampered {
		t.Fatalf("the rewritten log against its replica: %s, want tampered: %+v", rep.Verdict, rep.Findings)
	}
	for _, f := range rep.Findings {
		if f.Epoch != nil && *f.Epoch < 3 {
			t.Errorf("finding in epoch %d, before the rewrite: %+v", *f.Epoch, f)
		}
	}
	if rep := verify(t, replicaLog, localAnchors(t, dir)); rep.Verdict != verifier.Tampered {
		t.Fatalf("the replica against the forged roots: %s, want tampered", rep.Verdict)
	}
	_, err = replica.Once(context.Background(), dir, s, replica.Options{})
	var conflict *replica.ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("replicating the rewritten log: %v, want a *ConflictError", err)
	}
	_, f := openReplica(t, s)
	if len(f.Strays()) > 0 {
		t.Fatalf("the refused copy left objects: %v", f.Strays())
	}
}

// record records evs into the log in dir and closes it.
func record(t *testing.T, dir string, o recorder.Options, evs []format.Event) {
	t.Helper()
	r := logtest.Open(t, dir, o)
	for _, ev := range evs {
		if _, err := r.Record(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

func mustOpen(t testing.TB, dir string) *recorder.Log {
	t.Helper()
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A replicator follows a log as it is written: sealed epochs only by
// default, every durable event with EveryCommit; the status says how far.
func TestFollowsTheLog(t *testing.T) {
	for _, every := range []replica.Every{replica.EveryEpoch, replica.EveryCommit} {
		t.Run(every.String(), func(t *testing.T) {
			e := server(t)
			dir := t.TempDir()
			rec := logtest.Open(t, dir, recorder.Options{Recorder: "ops-1", EpochSize: 10})
			s := e.store(t, "")
			r, err := replica.Start(context.Background(), dir, s, replica.Options{Every: every, Interval: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close(context.Background())
			for _, ev := range workload.Generate(3, 25) {
				if _, err := rec.Record(context.Background(), ev); err != nil {
					t.Fatal(err)
				}
			}
			want := uint64(20) // two sealed epochs
			if every == replica.EveryCommit {
				want = 25
			}
			st := waitFor(t, r, func(st replica.Status) bool { return st.Events >= want && st.Epochs >= 2 && st.DurableEvents == 25 })
			if st.Events != want || st.Epochs != 2 || st.DurableEvents != 25 {
				t.Fatalf("status %+v, want %d events and 2 epochs copied of 25 durable", st, want)
			}
			if err := rec.Close(); err != nil { // seals the last epoch
				t.Fatal(err)
			}
			st = waitFor(t, r, func(st replica.Status) bool { return st.Epochs == 3 })
			if st.Events != 25 || st.LagEpochs != 0 || st.LagEvents != 0 || st.BehindSince != nil {
				t.Fatalf("after close: %+v", st)
			}
			if got, ok, err := replica.ReadStatus(dir); err != nil || !ok || got.URL != s.URL() {
				t.Fatalf("status file: %+v, %v, %v", got, ok, err)
			}
			_, f := openReplica(t, s)
			sameFiles(t, dir, f)
		})
	}
}

// waitFor waits until the replicator's status satisfies ok, failing the
// test after a minute.
func waitFor(t *testing.T, r *replica.Replicator, ok func(replica.Status) bool) replica.Status {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		st := r.Status()
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("status never came: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// One look reads at most a bound of each stream. After every look the
// replica holds an epoch's header only with its records and payloads (it
// verifies as a prefix of the log, never as payloads lost), and Once copies
// a log larger than a look whole.
func TestLogLargerThanALook(t *testing.T) {
	defer replica.SetMaxRead(16 << 10)()
	e := server(t)
	dir := writeLog(t, 400)
	anchors := localAnchors(t, dir)
	s := e.store(t, "")
	for pass := 1; ; pass++ {
		st, err := replica.OnePass(context.Background(), dir, s, replica.Options{})
		if err != nil {
			t.Fatal(err)
		}
		l, _ := openReplica(t, s)
		rep := verify(t, l, anchors[:st.Epochs])
		if rep.Verdict == verifier.Tampered || rep.AnchoredEpochs != st.Epochs {
			t.Fatalf("after look %d (%d events, %d epochs copied): %s, %d epochs anchored: %+v", pass, st.Events, st.Epochs, rep.Verdict, rep.AnchoredEpochs, rep.Findings)
		}
		if st.Epochs == 40 {
			if rep.Verdict != verifier.Verified {
				t.Fatalf("the whole log copied: %s: %+v", rep.Verdict, rep.Findings)
			}
			if pass < 3 {
				t.Fatalf("copied in %d looks: the log is not larger than a look, the test shows nothing", pass)
			}
			break
		}
		if pass == 100 {
			t.Fatalf("after 100 looks, %d of 40 epochs copied", st.Epochs)
		}
	}
	s = e.store(t, "")
	st, err := replica.Once(context.Background(), dir, s, replica.Options{})
	if err != nil || st.Events != 400 || st.Epochs != 40 {
		t.Fatalf("Once: %+v, %v; want the whole log copied", st, err)
	}
	_, f := openReplica(t, s)
	sameFiles(t, dir, f)
}

// With Object Lock retention (a bucket created with Object Lock, a
// replica dialled with Retention), every object copied is under
// retention in the mode asked for, and the server refuses to delete its
// data, even to the bucket's own keys: what a compromised host holding the
// writer's keys cannot undo.
func TestObjectLockRetention(t *testing.T) {
	e := server(t)
	e.n++
	bucket := fmt.Sprintf("locked-%d", e.n) // a new bucket each run: -count N
	e.srv.Bucket(t, bucket, true)
	cfg := e.srv.Config()
	cfg.Retention, cfg.Mode = time.Hour, "COMPLIANCE"
	s, err := replica.Dial("s3://"+bucket+"/ops-1", cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := writeLog(t, 30)
	if _, err := replica.Once(context.Background(), dir, s, replica.Options{}); err != nil {
		t.Fatal(err)
	}
	c := e.srv.Client()
	n := 0
	for o := range c.ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Prefix: "ops-1/", Recursive: true, WithVersions: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		n++
		mode, until, err := c.GetObjectRetention(context.Background(), bucket, o.Key, o.VersionID)
		if err != nil || mode == nil || *mode != minio.Compliance || until == nil || !until.After(time.Now().Add(50*time.Minute)) {
			t.Errorf("%s: retention %v until %v (%v), want COMPLIANCE for an hour", o.Key, mode, until, err)
		}
		err = c.RemoveObject(context.Background(), bucket, o.Key, minio.RemoveObjectOptions{VersionID: o.VersionID, GovernanceBypass: true})
		if err == nil {
			t.Errorf("%s: the server deleted a version under retention", o.Key)
		}
	}
	if n < 4 {
		t.Fatalf("%d objects under retention, want the log's", n)
	}
	l, _ := openReplica(t, s)
	if rep := verify(t, l, localAnchors(t, dir)); rep.Verdict != verifier.Verified || rep.Events != 30 {
		t.Fatalf("the locked replica after the deletes: %s, %d events: %+v", rep.Verdict, rep.Events, rep.Findings)
	}
}

// keysAt returns the keys under the prefix of the keys store s.
func (e *env) keysAt(t *testing.T, s *replica.Store) []string {
	t.Helper()
	prefix := strings.TrimPrefix(s.URL(), "s3://"+e.bucket+"/") + "/"
	var keys []string
	for o := range e.srv.Client().ListObjects(context.Background(), e.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		keys = append(keys, strings.TrimPrefix(o.Key, prefix))
	}
	return keys
}

// openFrom verifies the replica against anchors with every payload opened
// with the keys the keys store holds, and returns the epochs whose payloads were erased.
func openFrom(t *testing.T, s, keys *replica.Store, anchors []format.Anchor) []uint64 {
	t.Helper()
	tmp := t.TempDir()
	if err := replica.FetchKeys(context.Background(), keys, tmp); err != nil {
		t.Fatal(err)
	}
	l, _ := openReplica(t, s)
	_, session, err := l.Identity()
	if err != nil {
		t.Fatal(err)
	}
	kr, err := recorder.OpenKeyring(tmp, session)
	if err != nil {
		t.Fatal(err)
	}
	defer kr.Close()
	rep, err := verifier.VerifyLog(context.Background(), l, verifier.AnchorList(anchors), verifier.Options{Payloads: verifier.PayloadsOpen, Keys: kr})
	if err != nil {
		t.Fatal(err)
	}
	erased := map[uint64]bool{}
	for _, f := range rep.Findings {
		if f.Kind != verifier.KindPayloadErased {
			t.Errorf("finding %s at %d: %s", f.Kind, f.Seq, f.Detail)
			continue
		}
		if f.Epoch == nil {
			t.Fatalf("%s names no epoch", f.Kind)
		}
		erased[*f.Epoch] = true
	}
	var es []uint64
	for ep := range erased {
		es = append(es, ep)
	}
	slices.Sort(es)
	return es
}

// Keys are copied only when asked, to a store of their own: there every
// payload of the replica opens; an epoch erased in the log leaves the
// copy at the next pass (the superseded snapshot is deleted); the keys of
// another log are a conflict, and the log's own replica is no place for
// them.
func TestKeysCopiedWhenAsked(t *testing.T) {
	e := server(t)
	dir := writeLog(t, 50)
	s, keys := e.store(t, ""), e.store(t, "")
	if _, err := replica.Once(context.Background(), dir, s, replica.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := e.keysAt(t, keys); len(got) != 0 {
		t.Fatalf("keys copied unasked: %v", got)
	}
	for _, k := range e.keysAt(t, s) {
		if strings.Contains(k, "master") || strings.Contains(k, "salt") {
			t.Fatalf("the log's replica holds %s", k)
		}
	}
	st, err := replica.Once(context.Background(), dir, s, replica.Options{Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	if st.KeysURL != keys.URL() || st.KeysCopied.IsZero() {
		t.Fatalf("status %+v: want the keys copied to %s", st, keys.URL())
	}
	if got, want := e.keysAt(t, keys), []string{"epoch-salts/0000000000000000", "master.key"}; !slices.Equal(got, want) {
		t.Fatalf("keys store holds %v, want %v", got, want)
	}
	if erased := openFrom(t, s, keys, localAnchors(t, dir)); len(erased) != 0 {
		t.Fatalf("with the copied keys, epochs %v are erased; want every payload open", erased)
	}
	// Unchanged keys: nothing written.
	if _, err := replica.Once(context.Background(), dir, s, replica.Options{Keys: keys}); err != nil {
		t.Fatal(err)
	}
	if got := e.keysAt(t, keys); len(got) != 2 {
		t.Fatalf("after a pass with nothing changed: %v", got)
	}

	kr, err := recorder.OpenKeyring(filepath.Join(dir, "keys"), format.SessionID{})
	if err != nil {
		t.Fatal(err)
	}
	if err := kr.Erase(2); err != nil {
		t.Fatal(err)
	}
	kr.Close()
	if _, err := replica.Once(context.Background(), dir, s, replica.Options{Keys: keys}); err != nil {
		t.Fatal(err)
	}
	if got, want := e.keysAt(t, keys), []string{"epoch-salts/0000000000000001", "master.key"}; !slices.Equal(got, want) {
		t.Fatalf("after erasing epoch 2, the keys store holds %v, want %v (the old salts deleted)", got, want)
	}
	if erased := openFrom(t, s, keys, localAnchors(t, dir)); !slices.Equal(erased, []uint64{2}) {
		t.Fatalf("after erasing epoch 2, epochs %v are erased on the copy; want [2]", erased)
	}

	// A second writer takes the next generation first: the copy that loses
	// the race starts again from the newest one, and its next look writes
	// the log's salts after it.
	kr, err = recorder.OpenKeyring(filepath.Join(dir, "keys"), format.SessionID{})
	if err != nil {
		t.Fatal(err)
	}
	if err := kr.Erase(3); err != nil {
		t.Fatal(err)
	}
	kr.Close()
	prefix := strings.TrimPrefix(keys.URL(), "s3://"+e.bucket+"/") + "/"
	first, second := replica.CopyKeysRacing(context.Background(), filepath.Join(dir, "keys"), keys, func() {
		if _, err := e.srv.Client().PutObject(context.Background(), e.bucket, prefix+"epoch-salts/0000000000000002", strings.NewReader("x"), 1, minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	if !errors.Is(first, replica.ErrExists) || second != nil {
		t.Fatalf("racing copies: %v, then %v; want the generation taken, then a copy", first, second)
	}
	if got, want := e.keysAt(t, keys), []string{"epoch-salts/0000000000000003", "master.key"}; !slices.Equal(got, want) {
		t.Fatalf("after the race, the keys store holds %v, want %v", got, want)
	}
	if erased := openFrom(t, s, keys, localAnchors(t, dir)); !slices.Equal(erased, []uint64{2, 3}) {
		t.Fatalf("after erasing epoch 3, epochs %v are erased on the copy; want [2 3]", erased)
	}

	other := writeLog(t, 10)
	var conflict *replica.ConflictError
	if _, err := replica.Once(context.Background(), other, e.store(t, ""), replica.Options{Keys: keys}); !errors.As(err, &conflict) {
		t.Fatalf("another log's keys to the same place: %v, want a conflict", err)
	}
	for _, at := range []string{s.URL(), s.URL() + "/keys"} {
		k, err := replica.Dial(at, e.srv.Config())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := replica.Once(context.Background(), dir, s, replica.Options{Keys: k}); err == nil || !strings.Contains(err.Error(), "store of their own") {
			t.Errorf("keys to %s: %v, want refused", at, err)
		}
	}
}
