package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/watch"
)

// afr watch --listen serves the watcher's metrics in Prometheus's text
// format at /metrics, and refuses a request naming another host (a web
// page that made its name resolve to loopback).
func TestWatchMetricsListener(t *testing.T) {
	w, err := watch.New(nil, watch.Config{}, watch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	addrFile := filepath.Join(t.TempDir(), "metrics.addr")
	srv, err := serveMetrics("127.0.0.1:0", addrFile, w)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	b, err := os.ReadFile(addrFile)
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + strings.TrimSpace(string(b)) + "/metrics"
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "\nafr_watch_polls_total 0\n") ||
		!strings.Contains(string(body), `afr_watch_alarms_active{alarm="anchor_late"} 0`) {
		t.Fatalf("GET /metrics: %s\n%s", resp.Status, body)
	}
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Host = "attacker.example"
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a request for another host: %s, want 403", resp.Status)
	}
}

// afr watch follows a replica in object storage that its config names
// (s3://BUCKET/PREFIX, reached with the environment's endpoint and keys),
// against a real S3 server: the log's own replica raises nothing; the
// replica of a copy of the log rewritten from event 10 on holds another
// root for its last epoch than the one anchored (replica_conflict, exit
// 7); a bucket that is not there is a source_error.
func TestWatchS3Replica(t *testing.T) {
	auditBucket(t)
	dir := filepath.Join(t.TempDir(), "log")
	mustAfr(t, exitOK, "record", "--log", dir, "--recorder", "ops-1", "--epoch-size", "10", eventsFile(t, 10, "first"))
	forged := filepath.Join(t.TempDir(), "forged") // the log at event 10, rewritten on from there
	if err := os.CopyFS(forged, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(forged, "keys", "master.key"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustAfr(t, exitOK, "record", "--log", dir, "--epoch-size", "10", eventsFile(t, 10, "second"))
	mustAfr(t, exitOK, "record", "--log", forged, "--epoch-size", "10", eventsFile(t, 10, "forged"))
	mustAfr(t, exitOK, "replicate", "--log", dir, "--once", "s3://audit/agents/ops-1")
	mustAfr(t, exitOK, "replicate", "--log", forged, "--once", "s3://audit/agents/forged")

	c, err := backend.NewInProcess(backend.InProcessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	rpcURL, err := c.ServeRPC()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	key := c.Keys()[0]
	d, err := chain.Deploy(ctx, c.Client(), key, nil)
	if err != nil {
		t.Fatal(err)
	}
	id, as := logtest.Anchors(t, dir)
	if len(as) != 2 {
		t.Fatalf("the log has %d sealed epochs, want 2", len(as))
	}
	for _, a := range as {
		if _, err := chain.Transact(ctx, c.Client(), key, &d.EpochAnchor, nil, bindings.NewEpochAnchor().PackAnchor(id, a.Epoch, a.Root, a.PrevRoot)); err != nil {
			t.Fatal(err)
		}
	}

	watchReplica := func(url string) (code int, out, errOut string) {
		cfg := filepath.Join(t.TempDir(), "watch.json")
		body := fmt.Sprintf(`{"operators": [{"address": %q, "logs": [{"id": %q, "replica": %q, "replica_stall": "1h"}]}]}`, chain.Address(key).Hex(), id, url)
		if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return afrOut("watch", "--config", cfg, "--rpc", rpcURL, "--contract", d.EpochAnchor.Hex(), "--once")
	}
	if code, out, errOut := watchReplica("s3://audit/agents/ops-1"); code != exitOK || out != "" {
		t.Fatalf("the log's own replica: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut := watchReplica("s3://audit/agents/forged")
	if code != exitAlarms || !strings.Contains(out, `"alarm":"replica_conflict"`) || !strings.Contains(out, `"epoch":1,"expected":"`+as[1].Root.String()+`"`) {
		t.Fatalf("the rewritten log's replica: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut = watchReplica("s3://absent/agents/ops-1")
	if code != exitAlarms || !strings.Contains(out, `"alarm":"source_error"`) || !strings.Contains(out, "s3://absent/agents/ops-1") {
		t.Fatalf("a bucket that is not there: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if code, _, errOut := watchReplica("s3://"); code != exitError || !strings.Contains(errOut, "names no bucket") {
		t.Fatalf("a replica URL without a bucket: exit %d\nstderr: %s", code, errOut)
	}
}
