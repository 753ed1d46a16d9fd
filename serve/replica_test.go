package serve_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/replica"
	"github.com/agentflightrecorder/afr/replica/s3test"
	"github.com/agentflightrecorder/afr/serve"
)

// A daemon with a replica (afr serve --replica) copies the log to a real
// S3 server as it grows, and GET /v1/status says how far the copy is: the
// events and epochs copied against the durable mark, and the lag.
func TestReplicaInStatus(t *testing.T) {
	srv := s3test.Start(t)
	srv.Bucket(t, "audit", false)
	s, err := replica.Dial("s3://audit/agents/serve", srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	d := start(t, serve.Config{Recorder: recorder.Options{EpochSize: 10, EpochMaxAge: -1},
		Replica: &serve.Replication{Store: s, Options: replica.Options{Interval: 10 * time.Millisecond}}})
	c := newClient(t, d)
	for i := range 25 {
		c.receipt(event(i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Epochs 0 and 1 are sealed and durable, and so are all 25 events:
	// wait for a look that saw them all and copied the two epochs.
	var st serve.Status
	for st = c.status(); st.Replica == nil || st.Replica.Epochs < 2 || st.Replica.DurableEvents < 25; st = c.status() {
		if ctx.Err() != nil {
			t.Fatalf("the sealed epochs were not copied in time: %+v", st.Replica)
		}
		time.Sleep(10 * time.Millisecond)
	}
	r := st.Replica
	if r.URL != "s3://audit/agents/serve" || r.Every != "epoch" || r.Events != 20 || r.Epochs != 2 ||
		r.DurableEvents != 25 || r.DurableEpochs != 2 || r.LagEpochs != 0 || r.LagEvents != 5 ||
		r.BehindSince != nil || r.Copied.IsZero() || r.Error != "" || r.Conflict != "" {
		t.Fatalf("replica status %+v, want 20 events and 2 epochs copied of 25 durable events, no epoch behind", *r)
	}
}
