package watch_test

import (
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/replica"
	"github.com/agentflightrecorder/afr/replica/s3test"
	"github.com/agentflightrecorder/afr/watch"
)

// A replica in object storage, on a real S3 server (SeaweedFS on
// loopback), copied by replica.Once: behind the chain and not advancing
// for longer than its bound it is replica_stalled, until a copy catches
// up; deleted and replaced by a copy of another log (what keys allowed to
// delete can do to a bucket without Object Lock) it is replica_conflict;
// a bucket that is not there is source_error.
func TestBucketReplica(t *testing.T) {
	srv := s3test.Start(t)
	srv.Bucket(t, "replicas", false)
	const prefix = "agents/ops-1"
	store, err := replica.Dial("s3://replicas/"+prefix, srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, inProcess(t))
	copyLog := func(dir string) {
		t.Helper()
		if _, err := replica.Once(r.ctx, dir, store, replica.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	dir, a, ra := r.replicatedLog(4, copyLog)
	w := r.watcher([]watch.Log{{ID: a, Replica: watch.Bucket(store), ReplicaStall: time.Minute}}, watch.Options{})
	r.poll(w)
	r.wait(30 * time.Second)
	r.poll(w) // behind, within its bound
	r.wait(31 * time.Second)
	ev := r.poll(w, "raised replica_stalled")[0]
	if ev.Epoch == nil || *ev.Epoch != 1 || !strings.Contains(ev.Detail, "holds 1 epochs, the chain and checkpoint show 3") {
		t.Errorf("stalled replica: epoch %v, %s", ev.Epoch, ev.Detail)
	}
	copyLog(dir)
	r.poll(w, "cleared replica_stalled")
	if got := metrics(t, w)[`afr_watch_replica_epochs{log="`+a.String()+`"}`]; got != 3 {
		t.Errorf("afr_watch_replica_epochs = %v after the copy caught up, want 3", got)
	}

	c := srv.Client()
	for o := range c.ListObjects(r.ctx, "replicas", minio.ListObjectsOptions{Prefix: prefix + "/", Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		if err := c.RemoveObject(r.ctx, "replicas", o.Key, minio.RemoveObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	other := logtest.Write(t, recorder.Options{Recorder: "replica", EpochSize: 10, EpochMaxAge: -1}, workload.Generate(5, 10))
	copyLog(other.Dir)
	ev = r.poll(w, "raised replica_conflict")[0]
	_, oas := logtest.Anchors(t, other.Dir)
	if ev.Epoch == nil || *ev.Epoch != 0 || ev.Expected != ra[0].String() || ev.Found != oas[0].Root.String() {
		t.Errorf("conflict: epoch %v, expected %s, found %s; want epoch 0, %s, %s", ev.Epoch, ev.Expected, ev.Found, ra[0], oas[0].Root)
	}

	absent, err := replica.Dial("s3://absent/"+prefix, srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	w = r.watcher([]watch.Log{{ID: a, Replica: watch.Bucket(absent)}}, watch.Options{})
	if ev := r.poll(w, "raised source_error")[0]; !strings.Contains(ev.Detail, "s3://absent/"+prefix) {
		t.Errorf("a bucket that is not there: %s", ev.Detail)
	}
}
