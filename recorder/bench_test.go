package recorder_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/transparency-dev/merkle/compact"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
)

// The ablation ladder of the paper (docs/PERFORMANCE.md): each rung adds one
// mechanism to the previous on the same synthetic workload (seed 42), and
// all write through a 64 KiB buffered writer without fsync, so the ladder
// measures the recorder's own work per event.
//
//	baseline  json.Marshal of the event + buffered append (no integrity)
//	schema    + eight typed fields in deterministic CBOR, framed segments
//	chain     + SHA-256 record digests chained through the envelope
//	merkle    + RFC 6962 epochs of 100 events with headers
//	full      the Recorder itself: + keyed commitments, AES-256-GCM per-event
//	          keys, epoch salts, sealed-epoch notification (anchoring input)
//
// Run: go test -run '^$' -bench BenchmarkRecord -benchtime 10000x ./recorder/
func BenchmarkRecord(b *testing.B) {
	events := workload.Generate(42, 10000)
	b.Run("baseline", func(b *testing.B) {
		dir := b.TempDir()
		f, _ := os.Create(filepath.Join(dir, "log.jsonl"))
		defer f.Close()
		w := bufio.NewWriterSize(f, 64<<10)
		ladder(b, dir, events, func(ev *format.Event) error {
			j, err := json.Marshal(ev)
			if err != nil {
				return err
			}
			w.Write(j)
			return w.WriteByte('\n')
		}, func() error { return w.Flush() })
	})
	for _, rung := range []string{"schema", "chain", "merkle"} {
		b.Run(rung, func(b *testing.B) {
			dir := b.TempDir()
			l := newLadderLog(b, dir, rung)
			ladder(b, dir, events, l.append, l.flush)
		})
	}
	b.Run("full", func(b *testing.B) {
		dir := b.TempDir()
		r, err := recorder.Open(dir, recorder.Options{Recorder: "bench", Encrypt: true, Sync: recorder.SyncNone, EpochMaxAge: -1})
		if err != nil {
			b.Fatal(err)
		}
		go func() {
			for range r.Sealed() { // the anchorer's side, off the hot path
			}
		}()
		ctx := context.Background()
		ladder(b, dir, events, func(ev *format.Event) error {
			_, err := r.Record(ctx, *ev)
			return err
		}, r.Close)
	})
}

// ladder records b.N events, timing each, and reports median and P99
// latency and the bytes written per event.
func ladder(b *testing.B, dir string, events []format.Event, record func(*format.Event) error, done func() error) {
	lat := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := &events[i%len(events)]
		t0 := time.Now()
		if err := record(ev); err != nil {
			b.Fatal(err)
		}
		lat[i] = time.Since(t0)
	}
	b.StopTimer()
	if err := done(); err != nil {
		b.Fatal(err)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "median-ns/event")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns/event")
	b.ReportMetric(float64(dirSize(b, dir))/float64(b.N), "bytes/event")
}

func dirSize(b *testing.B, dir string) int64 {
	var n int64
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && filepath.Base(filepath.Dir(p)) != "keys" && info.Name() != "MANIFEST" {
			n += info.Size()
		}
		return nil
	})
	return n
}

var ladderRanges = &compact.RangeFactory{Hash: format.Hasher.HashChildren}

// ladderLog implements the intermediate rungs with the package's own
// encoders and the same segment writer the Recorder uses.
type ladderLog struct {
	rung              string
	records, payloads *segment.Writer
	epochs            *segment.Writer
	seq               uint64
	last, prevRoot    format.Digest
	epoch             *compact.Range // incremental, as the Recorder does
	nepoch            uint64
}

func newLadderLog(b *testing.B, dir, rung string) *ladderLog {
	l := &ladderLog{rung: rung}
	var err error
	for _, s := range []struct {
		w    **segment.Writer
		kind string
	}{{&l.records, "records"}, {&l.payloads, "payloads"}, {&l.epochs, "epochs"}} {
		if *s.w, _, err = segment.Open(filepath.Join(dir, s.kind), s.kind, 64<<20, nil); err != nil {
			b.Fatal(err)
		}
	}
	return l
}

func (l *ladderLog) append(ev *format.Event) error {
	pt, err := format.EncodePayload(&ev.Payload)
	if err != nil {
		return err
	}
	env := format.Envelope{Version: 1, Recorder: "bench", Seq: l.seq, Clock: l.seq + 1, Group: ev.Group,
		Time: time.Now().UnixNano(), Tool: ev.Tool, Kind: ev.Kind}
	if l.rung != "schema" {
		env.Payload = format.PayloadFrameDigest(pt)
		env.Prev = l.last
	}
	enc, err := format.EncodeEnvelope(&env)
	if err != nil {
		return err
	}
	l.payloads.Append(pt)
	l.records.Append(enc)
	l.seq++
	if l.rung == "schema" {
		return nil
	}
	l.last = format.RecordDigest(enc)
	if l.rung == "chain" {
		return nil
	}
	if l.epoch == nil {
		l.epoch = ladderRanges.NewEmptyRange(0)
	}
	leaf := format.LeafHash(l.last)
	l.epoch.Append(leaf[:], nil)
	if l.epoch.End() == 100 {
		var root format.Digest
		r, _ := l.epoch.GetRootHash(nil)
		copy(root[:], r)
		h := format.EpochHeader{Version: 1, Recorder: "bench", Epoch: l.nepoch, FirstSeq: l.seq - 100, Count: 100,
			MerkleRoot: root, LastRecord: l.last, PrevRoot: l.prevRoot, Time: time.Now().UnixNano()}
		hb, err := format.EncodeEpochHeader(&h)
		if err != nil {
			return err
		}
		l.epochs.Append(hb)
		l.prevRoot = format.EpochRoot(hb)
		l.epoch = nil
		l.nepoch++
	}
	return nil
}

func (l *ladderLog) flush() error {
	for _, w := range []*segment.Writer{l.records, l.payloads, l.epochs} {
		if err := w.Close(); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkSync measures durable throughput under each sync policy, with one
// sequential writer (an agent) and with 16 concurrent writers (a host with
// many agents), on the same workload with encryption on.
//
// Run: go test -run '^$' -bench BenchmarkSync -benchtime 2000x ./recorder/
func BenchmarkSync(b *testing.B) {
	events := workload.Generate(42, 10000)
	for _, policy := range []recorder.SyncPolicy{recorder.SyncEvent, recorder.SyncGroup, recorder.SyncWrite, recorder.SyncNone} {
		for _, writers := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/writers=%d", policy, writers), func(b *testing.B) {
				r, err := recorder.Open(b.TempDir(), recorder.Options{Recorder: "bench", Encrypt: true, Sync: policy, EpochMaxAge: -1})
				if err != nil {
					b.Fatal(err)
				}
				go func() {
					for range r.Sealed() {
					}
				}()
				ctx := context.Background()
				var next atomic.Int64
				var wg sync.WaitGroup
				b.ResetTimer()
				start := time.Now()
				for w := 0; w < writers; w++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for {
							i := next.Add(1) - 1
							if i >= int64(b.N) {
								return
							}
							if _, err := r.Record(ctx, events[i%int64(len(events))]); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				if err := r.Close(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
			})
		}
	}
}
