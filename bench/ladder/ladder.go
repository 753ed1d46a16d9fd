// Package ladder is the paper's ablation ladder (Table II): five ways of
// recording the same event, each adding one mechanism to the previous, so
// that the cost of each mechanism can be measured on the same workload in
// the same run. recorder's BenchmarkRecord and `afr bench` (Table II, RQ1)
// both measure these rungs; there is no other implementation.
//
//	baseline  json.Marshal of the event + buffered append (no integrity)
//	schema    + eight typed fields in deterministic CBOR, framed segments
//	chain     + SHA-256 record digests chained through the envelope
//	merkle    + RFC 6962 epochs of 100 events with headers
//	full      the Recorder itself: + keyed commitments, AES-256-GCM per-event
//	          keys, epoch salts, sealed-epoch notification (anchoring input)
//
// Every rung writes through buffered writers without fsync (the full rung
// is a recorder.Recorder with SyncNone), so the ladder measures the
// recorder's own work per event, not the disk. The intermediate rungs use
// the format package's encoders and the same segment writer the Recorder
// uses; the full rung uses only the recorder's public API.
package ladder

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
	"github.com/agentflightrecorder/afr/recorder"
)

// Rungs are the rungs of the ladder, cheapest first.
var Rungs = []string{"baseline", "schema", "chain", "merkle", "full"}

// EpochSize is the epoch size of the merkle and full rungs (the paper's).
const EpochSize = 100

// Log is one rung writing a log: Record appends an event, Close flushes
// and closes it.
type Log interface {
	Record(ev *format.Event) error
	Close() error
}

// Open starts a log of the named rung in dir, which must be empty or
// absent.
func Open(rung, dir string) (Log, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	switch rung {
	case "baseline":
		f, err := os.Create(filepath.Join(dir, "log.jsonl"))
		if err != nil {
			return nil, err
		}
		return &jsonLog{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
	case "schema", "chain", "merkle":
		return openFramed(dir, rung)
	case "full":
		r, err := recorder.Open(dir, recorder.Options{Recorder: "bench", Encrypt: true, EpochSize: EpochSize,
			Sync: recorder.SyncNone, EpochMaxAge: -1})
		if err != nil {
			return nil, err
		}
		go func() {
			for range r.Sealed() { // the anchorer's side, off the hot path
			}
		}()
		return fullLog{r}, nil
	}
	return nil, fmt.Errorf("ladder: unknown rung %q (want one of %v)", rung, Rungs)
}

// Time records len(lat) events, cycling through events, and stores each
// Record call's latency in lat.
func Time(l Log, events []format.Event, lat []time.Duration) error {
	for i := range lat {
		ev := &events[i%len(events)]
		t0 := time.Now()
		if err := l.Record(ev); err != nil {
			return err
		}
		lat[i] = time.Since(t0)
	}
	return nil
}

// Quantile is the q-quantile (0 ≤ q < 1) of sorted latencies, by rank:
// sorted[⌊len·q⌋], the median at q = 0.5.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	return sorted[int(float64(len(sorted))*q)]
}

// DirBytes is what a rung wrote in dir: every file except the key
// directory and the MANIFEST, which do not grow with the log.
func DirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() && filepath.Base(filepath.Dir(p)) != "keys" && info.Name() != "MANIFEST" {
			n += info.Size()
		}
		return nil
	})
	return n, err
}

// jsonLog is the baseline: what a conventional logger keeps.
type jsonLog struct {
	f *os.File
	w *bufio.Writer
}

func (l *jsonLog) Record(ev *format.Event) error {
	j, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	l.w.Write(j)
	return l.w.WriteByte('\n')
}

func (l *jsonLog) Close() error {
	err := l.w.Flush()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// fullLog is the Recorder.
type fullLog struct{ r *recorder.Recorder }

func (l fullLog) Record(ev *format.Event) error {
	_, err := l.r.Record(context.Background(), *ev)
	return err
}

func (l fullLog) Close() error { return l.r.Close() }

// framedLog implements the intermediate rungs with the format package's
// encoders and the same segment writer the Recorder uses.
type framedLog struct {
	rung              string
	records, payloads *segment.Writer
	epochs            *segment.Writer
	seq               uint64
	last, prevRoot    format.Digest
	epoch             *format.Tree // incremental, as the Recorder does
	nepoch            uint64
}

func openFramed(dir, rung string) (*framedLog, error) {
	l := &framedLog{rung: rung}
	var err error
	for _, s := range []struct {
		w    **segment.Writer
		kind string
	}{{&l.records, "records"}, {&l.payloads, "payloads"}, {&l.epochs, "epochs"}} {
		if *s.w, _, err = segment.Open(filepath.Join(dir, s.kind), s.kind, 64<<20, nil); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (l *framedLog) Record(ev *format.Event) error {
	pt, err := format.EncodePayload(&ev.Payload)
	if err != nil {
		return err
	}
	env := format.Envelope{Version: format.Version, Recorder: "bench", Seq: l.seq, Clock: l.seq + 1, Group: ev.Group,
		Time: time.Now().UnixNano(), Tool: ev.Tool, Kind: ev.Kind}
	if l.rung != "schema" {
		env.Payload = format.PayloadFrameDigest(pt)
		env.Prev = l.last
	}
	enc, err := format.EncodeEnvelope(&env)
	if err != nil {
		return err
	}
	if _, err := l.payloads.Append(pt); err != nil {
		return err
	}
	if _, err := l.records.Append(enc); err != nil {
		return err
	}
	l.seq++
	if l.rung == "schema" {
		return nil
	}
	l.last = format.RecordDigest(enc)
	if l.rung == "chain" {
		return nil
	}
	if l.epoch == nil {
		l.epoch = format.NewTree()
	}
	l.epoch.Append(l.last)
	if l.epoch.Size() == EpochSize {
		root := l.epoch.Root()
		h := format.EpochHeader{Version: format.Version, Recorder: "bench", Epoch: l.nepoch, FirstSeq: l.seq - EpochSize, Count: EpochSize,
			MerkleRoot: root, LastRecord: l.last, PrevRoot: l.prevRoot, Time: time.Now().UnixNano()}
		hb, err := format.EncodeEpochHeader(&h)
		if err != nil {
			return err
		}
		if _, err := l.epochs.Append(hb); err != nil {
			return err
		}
		l.prevRoot = format.EpochRoot(hb)
		l.epoch = nil
		l.nepoch++
	}
	return nil
}

func (l *framedLog) Close() error {
	var first error
	for _, w := range []*segment.Writer{l.records, l.payloads, l.epochs} {
		if err := w.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
