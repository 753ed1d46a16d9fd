package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/replica/s3test"
)

// eventsFile writes n events as JSON lines, tagged tag.
func eventsFile(t *testing.T, n int, tag string) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"tool":"shell","kind":"tool_call","payload":{"intent":{"tool":"shell","args":{"cmd":"%s %d"}}}}`+"\n", tag, i)
	}
	p := filepath.Join(t.TempDir(), tag+".jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustAfr(t *testing.T, want int, args ...string) string {
	t.Helper()
	code, out, errOut := afrOut(args...)
	if code != want {
		t.Fatalf("afr %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, out, errOut)
	}
	return out
}

// The compromise scenario through the CLI, against a real S3 server: a
// log is replicated; the host then deletes it, and the replica verifies
// against the anchored roots and answers queries, reports and
// disclosures; the host rewrites it instead, and the rewritten log is
// tampered against its replica, which a replicator refuses to extend.
func TestReplicaCompromise(t *testing.T) {
	auditBucket(t)
	dir := filepath.Join(t.TempDir(), "log")
	mustAfr(t, exitOK, "record", "--log", dir, "--recorder", "ops-1", "--epoch-size", "10", eventsFile(t, 30, "first"))
	base := filepath.Join(t.TempDir(), "base") // the log at event 30
	if err := os.CopyFS(base, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(base, "keys", "master.key"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustAfr(t, exitOK, "record", "--log", dir, "--epoch-size", "10", eventsFile(t, 25, "second"))
	url, keys := "s3://audit/agents/ops-1", "s3://audit-keys/ops-1"
	out := mustAfr(t, exitOK, "replicate", "--log", dir, "--once", "--keys-to", keys, url)
	if !strings.Contains(out, "55 events, 6 epochs copied") || !strings.Contains(out, "keys copied to "+keys) {
		t.Fatalf("afr replicate: %s", out)
	}
	if out := mustAfr(t, exitOK, "status", "--log", dir); !strings.Contains(out, "replica    "+url+": 55 events, 6 epochs copied (every epoch); lag 0 epochs, 0 events") {
		t.Fatalf("afr status:\n%s", out)
	}
	anchors := filepath.Join(t.TempDir(), "anchors.json") // the roots the chain holds
	mustAfr(t, exitOK, "anchors", "--log", dir, "-o", anchors)

	t.Run("deleted", func(t *testing.T) {
		saved := filepath.Join(t.TempDir(), "saved")
		if err := os.Rename(dir, saved); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Rename(saved, dir) })
		out := mustAfr(t, exitOK, "verify", "--log", url, "--anchors", anchors)
		if !strings.HasPrefix(out, "VERIFIED\n  events 55, epochs 6; anchored: 6 epochs, 55 events") {
			t.Fatalf("afr verify of the replica:\n%s", out)
		}
		// The keys, gone with the host, are read from their own copy.
		q := mustAfr(t, exitOK, "query", "--log", url, "--anchors", anchors, "--keys", keys, "--json", "--tool", "shell")
		if n := strings.Count(q, `"second `); n != 25 {
			t.Fatalf("afr query of the replica: %d events of the second batch, want 25:\n%.2000s", n, q)
		}
		if out := mustAfr(t, exitOK, "verify", "--log", url, "--anchors", anchors, "--level", "open", "--keys", keys); !strings.HasPrefix(out, "VERIFIED") {
			t.Fatalf("afr verify --level open of the replica with the keys' copy:\n%s", out)
		}
		code, out, errOut := afrOut("verify", "--log", url, "--anchors", anchors, "--level", "open")
		if code != exitIncomplete || !strings.Contains(out, "payload_missing (incomplete) events 0..54") || !strings.Contains(errOut, "--keys-to") {
			t.Fatalf("afr verify --level open of the replica without keys: exit %d\n%s\n%s", code, out, errOut)
		}
		if _, _, errOut := afrOut("erase", "--log", saved, "--epoch", "1", "--keys", keys, "--yes"); !strings.Contains(errOut, "erase the local key directory") {
			t.Fatalf("afr erase of the keys' copy: %s", errOut)
		}
		page := filepath.Join(t.TempDir(), "report.html")
		mustAfr(t, exitOK, "report", "--log", url, "--anchors", anchors, "-o", page)
		bundle := filepath.Join(t.TempDir(), "e.afrb")
		mustAfr(t, exitOK, "disclose", "--log", url, "--seq", "40", "-o", bundle)
		if out := mustAfr(t, exitOK, "verify", "--bundle", bundle, "--anchors", anchors); !strings.HasPrefix(out, "VERIFIED") {
			t.Fatalf("the bundle disclosed from the replica: %s", out)
		}
	})

	t.Run("rewritten", func(t *testing.T) {
		// The host rewrites the log from event 30 on, with its keys.
		mustAfr(t, exitOK, "record", "--log", base, "--epoch-size", "10", eventsFile(t, 25, "forged"))
		if out := mustAfr(t, exitOK, "verify", "--log", base, "--anchors", mustAnchors(t, base)); !strings.HasPrefix(out, "VERIFIED") {
			t.Fatalf("the rewritten log alone: %s", out)
		}
		out := mustAfr(t, exitTampered, "verify", "--log", base, "--replica", url)
		if !strings.Contains(out, "anchor_mismatch") || !strings.Contains(out, "epoch 3") || strings.Contains(out, "epoch 2:") {
			t.Fatalf("the rewritten log against its replica:\n%s", out)
		}
		mustAfr(t, exitOK, "verify", "--log", dir, "--replica", url) // the log as it was
		_, _, errOut := afrOut("replicate", "--log", base, "--once", url)
		if !strings.Contains(errOut, "does not extend its replica") {
			t.Fatalf("afr replicate of the rewritten log: %s", errOut)
		}
	})
}

// auditBucket starts a real S3 server with a bucket "audit" and points
// the environment at it, as an operator's shell is: afr reaches it from
// there.
func auditBucket(t *testing.T) {
	t.Helper()
	srv := s3test.Start(t)
	srv.Bucket(t, "audit", false)
	srv.Bucket(t, "audit-keys", false)
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

func mustAnchors(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "anchors.json")
	mustAfr(t, exitOK, "anchors", "--log", dir, "-o", p)
	return p
}
