package replica_test

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/replica"
	"github.com/agentflightrecorder/afr/replica/s3test"
)

// Faults of the server or the network between: the replicator reports the
// failure, goes on retrying, never stops the recorder, and once the
// server answers again the replica catches up, whole and with nothing
// written twice or left over.
func TestFaults(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault s3test.Fault
	}{{"down", s3test.Down}, {"5xx", s3test.Unavailable}, {"slow", s3test.Slow}, {"cut mid-upload", s3test.CutUpload}} {
		t.Run(c.name, func(t *testing.T) {
			e := server(t)
			proxy := s3test.NewProxy(t, e.srv.Endpoint)
			proxy.SetDelay(300 * time.Millisecond)
			dir := t.TempDir()
			rec := logtest.Open(t, dir, recorder.Options{Recorder: "ops-1", EpochSize: 10})
			s := e.store(t, proxy.Endpoint)
			r, err := replica.Start(context.Background(), dir, s, replica.Options{Interval: 5 * time.Millisecond, MaxBackoff: 20 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close(context.Background())
			proxy.Set(c.fault, -1)
			for _, ev := range workload.Generate(5, 40) {
				if _, err := rec.Record(context.Background(), ev); err != nil {
					t.Fatalf("Record during the fault: %v", err)
				}
			}
			<-proxy.Injected()
			if c.fault != s3test.Slow {
				st := waitFor(t, r, func(st replica.Status) bool { return st.Error != "" })
				if st.Epochs == 4 {
					t.Fatalf("every epoch copied through the fault: %+v", st)
				}
			}
			proxy.Set(s3test.Pass, 0)
			st := waitFor(t, r, func(st replica.Status) bool { return st.Epochs == 4 && st.Error == "" })
			if st.Events != 40 || st.LagEpochs != 0 {
				t.Fatalf("after the fault: %+v", st)
			}
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, r, func(st replica.Status) bool { return st.Epochs == 4 && st.DurableEpochs == 4 })
			direct, err := replica.Dial(s.URL(), e.srv.Config())
			if err != nil {
				t.Fatal(err)
			}
			_, f := openReplica(t, direct)
			sameFiles(t, dir, f)
		})
	}
}

// The recorder and its replicator are killed (SIGKILL) while they copy:
// a new replicator resumes where the replica ends, without losing or
// rewriting anything, and the replica is the log.
func TestKilledMidReplication(t *testing.T) {
	if dir := os.Getenv("AFR_REPLICA_CHILD"); dir != "" {
		child(dir)
		return
	}
	e := server(t)
	dir := t.TempDir()
	s := e.store(t, "")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledMidReplication$")
	cmd.Env = append(os.Environ(), "AFR_REPLICA_CHILD="+dir, "AFR_REPLICA_URL="+s.URL(), "AFR_REPLICA_ENDPOINT="+e.srv.Endpoint)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Kill it once the replica holds a few epochs: wherever it is then.
	deadline := time.Now().Add(time.Minute)
	for {
		st, ok, _ := replica.ReadStatus(dir)
		if ok && st.Epochs >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child never got going: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// The log as the kill left it, repaired by its next writer.
	rec, err := recorder.Open(dir, recorder.Options{Recorder: "ops-1", EpochSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := replica.Once(context.Background(), dir, s, replica.Options{})
	if err != nil {
		t.Fatalf("resuming: %v", err)
	}
	as := localAnchors(t, dir)
	if st.Epochs != uint64(len(as)) {
		t.Fatalf("resumed: %+v, the log has %d epochs", st, len(as))
	}
	_, f := openReplica(t, s)
	sameFiles(t, dir, f)
}

// child records and replicates until it is killed.
func child(dir string) {
	s, err := replica.Dial(os.Getenv("AFR_REPLICA_URL"), replica.Config{Endpoint: os.Getenv("AFR_REPLICA_ENDPOINT"), Region: "us-east-1",
		AccessKey: s3test.AccessKey, SecretKey: s3test.SecretKey})
	if err != nil {
		panic(err)
	}
	rec, err := recorder.Open(dir, recorder.Options{Recorder: "ops-1", EpochSize: 10})
	if err != nil {
		panic(err)
	}
	if _, err := replica.Start(context.Background(), dir, s, replica.Options{Interval: time.Millisecond, Every: replica.EveryCommit}); err != nil {
		panic(err)
	}
	g := workload.New(1)
	for i := 0; ; i++ {
		if _, err := rec.Record(context.Background(), g.Next()); err != nil {
			panic(strconv.Itoa(i) + ": " + err.Error())
		}
	}
}
