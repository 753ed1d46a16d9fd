package ladder_test

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/bench/ladder"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
)

// Each rung writes what it says: the baseline one JSON line per event; the
// framed rungs a record and a payload per event, chained from the chain
// rung on, with a header per 100 events whose Merkle root and chain head are
// the records' from the merkle rung on; the full rung a log that verifies.
func TestRungs(t *testing.T) {
	const n = 250
	events := workload.Generate(42, n)
	for _, rung := range ladder.Rungs {
		t.Run(rung, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "log")
			l, err := ladder.Open(rung, dir)
			if err != nil {
				t.Fatal(err)
			}
			lat := make([]time.Duration, n)
			if err := ladder.Time(l, events, lat); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if b, err := ladder.DirBytes(dir); err != nil || b < n*100 {
				t.Fatalf("DirBytes = %d, %v: less than 100 bytes an event", b, err)
			}
			switch rung {
			case "baseline":
				f, err := os.Open(filepath.Join(dir, "log.jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				lines := 0
				for sc := bufio.NewScanner(f); sc.Scan(); lines++ {
				}
				if lines != n {
					t.Fatalf("%d lines, want %d", lines, n)
				}
			case "full":
				lg, err := recorder.OpenLog(dir)
				if err != nil {
					t.Fatal(err)
				}
				as, err := verifier.AnchorsFromLog(lg)
				if err != nil {
					t.Fatal(err)
				}
				rep, err := verifier.VerifyLog(t.Context(), lg, verifier.AnchorList(as), verifier.Options{})
				if err != nil || rep.Verdict != verifier.Verified || rep.Events != n {
					t.Fatalf("the full rung's log: %v, %v", rep, err)
				}
			default:
				checkFramed(t, dir, rung, n)
			}
		})
	}
	if _, err := ladder.Open("sha3", t.TempDir()); err == nil {
		t.Fatal("Open(an unknown rung) = nil error")
	}
}

func checkFramed(t *testing.T, dir, rung string, n int) {
	t.Helper()
	var records []format.Digest
	var prev format.Digest
	err := segment.ReadAll(filepath.Join(dir, "records"), "records", func(f segment.Frame) error {
		e, err := format.DecodeEnvelope(f.Data)
		if err != nil {
			return err
		}
		if rung != "schema" && e.Prev != prev {
			t.Errorf("record %d: prev %x, want the previous record's digest %x", e.Seq, e.Prev, prev)
		}
		prev = format.RecordDigest(f.Data)
		records = append(records, prev)
		return nil
	})
	if err != nil || len(records) != n {
		t.Fatalf("%d records, %v; want %d", len(records), err, n)
	}
	payloads := 0
	err = segment.ReadAll(filepath.Join(dir, "payloads"), "payloads", func(segment.Frame) error { payloads++; return nil })
	if err != nil || payloads != n {
		t.Fatalf("%d payloads, %v; want %d", payloads, err, n)
	}
	headers := 0
	err = segment.ReadAll(filepath.Join(dir, "epochs"), "epochs", func(f segment.Frame) error {
		h, err := format.DecodeEpochHeader(f.Data)
		if err != nil {
			return err
		}
		ds := records[h.FirstSeq : h.FirstSeq+h.Count]
		if h.MerkleRoot != format.MerkleRoot(ds) || h.LastRecord != ds[len(ds)-1] {
			t.Errorf("epoch %d: root or chain head is not its records'", h.Epoch)
		}
		headers++
		return nil
	})
	want := 0
	if rung == "merkle" {
		want = n / ladder.EpochSize
	}
	if err != nil || headers != want {
		t.Fatalf("%d epoch headers, %v; want %d", headers, err, want)
	}
}
