package format_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
)

// BenchmarkFloor measures, in one run, what an event must cost the full
// recorder against what plain logging costs (docs/PERFORMANCE.md, "The
// floor"), on the ablation ladder's workload (seed 42):
//
//	baseline   json.Marshal of the event + buffered append to a file
//	<step>     each step the format requires of a writer, alone
//	floor      all the steps in sequence: the recorder's work without its
//	           own bookkeeping (lock, pools, receipts, sync policy)
//	recorder   Recorder.Record (encrypted, SyncNone: the ladder's full rung)
//	v1-<step>  the steps of format version 1 that version 2 replaced: the
//	           event key by HKDF-Expand, the HMAC commitment over the
//	           payload, an AES-256 key schedule and GCM per event key, the
//	           mode 1 frame
//
// Every case reports, besides wall time (ns/op), the CPU time the process
// spent per event (cpu-ns/event: user and system, the collector's
// included), which waiting for a core on a loaded machine does not
// inflate; floor and recorder also report both as ratios to the baseline of
// the same run (x-baseline, x-baseline-cpu). Run:
//
//	go test -run '^$' -bench BenchmarkFloor -count 5 ./format/
func BenchmarkFloor(b *testing.B) {
	events := workload.Generate(42, 10000)
	var baseWall, baseCPU float64 // ns per event of this run's baseline
	// loop runs body for each event, b.N times, and reports CPU time per
	// event; it returns wall and CPU ns per event.
	loop := func(b *testing.B, body func(i int)) (wall, cpu float64) {
		c0 := processCPU()
		for i := 0; b.Loop(); i++ {
			body(i)
		}
		wall = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		if c := processCPU() - c0; c > 0 {
			cpu = float64(c.Nanoseconds()) / float64(b.N)
			b.ReportMetric(cpu, "cpu-ns/event")
		}
		return wall, cpu
	}
	ratio := func(b *testing.B, wall, cpu float64) {
		if baseWall > 0 {
			b.ReportMetric(wall/baseWall, "x-baseline")
		}
		if baseCPU > 0 && cpu > 0 {
			b.ReportMetric(cpu/baseCPU, "x-baseline-cpu")
		}
	}
	b.Run("baseline", func(b *testing.B) {
		f, err := os.Create(filepath.Join(b.TempDir(), "log.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		w := bufio.NewWriterSize(f, 64<<10)
		baseWall, baseCPU = loop(b, func(i int) {
			j, err := json.Marshal(&events[i%len(events)])
			if err != nil {
				b.Fatal(err)
			}
			w.Write(j)
			w.WriteByte('\n')
		})
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	})

	// Inputs of the steps measured alone: each step gets what the step
	// before it produces for the same event.
	ek := [format.KeySize]byte{1}
	keys := format.NewEventKeyDeriver(format.Version, ek)
	session := format.SessionID{2}
	var nonce [format.NonceSize]byte
	var sealer format.Sealer
	pts, frames, encs := make([][]byte, len(events)), make([][]byte, len(events)), make([][]byte, len(events))
	digests := make([]format.Digest, len(events))
	for i := range events {
		var err error
		if pts[i], err = format.EncodePayload(&events[i].Payload); err != nil {
			b.Fatal(err)
		}
		k := keys.Derive(uint64(i))
		if frames[i], err = format.SealPayload(nil, &k, session, uint64(i), pts[i], format.ModeEncryptedV2, nonce); err != nil {
			b.Fatal(err)
		}
		env := envelopeOf(&events[i], session, uint64(i), frames[i], format.Digest{})
		if encs[i], err = format.EncodeEnvelope(&env); err != nil {
			b.Fatal(err)
		}
		digests[i] = format.RecordDigest(encs[i])
	}
	step := func(name string, f func(i int)) {
		b.Run(name, func(b *testing.B) { loop(b, func(i int) { f(i % len(events)) }) })
	}
	var buf bytes.Buffer
	step("validate", func(i int) { events[i].Payload.Validate() })
	step("validate+encode", func(i int) { buf.Reset(); format.EncodePayloadTo(&buf, &events[i].Payload) })
	step("event-key", func(i int) { keys.Derive(uint64(i)) })
	k := keys.Derive(0)
	step("key-commitment", func(int) { format.KeyCommitment(&k) })
	frame := make([]byte, 0, 4096)
	step("chacha20poly1305", func(i int) {
		aead, _ := chacha20poly1305.New(k[:format.KeySize])
		frame = aead.Seal(frame[:0], nonce[:], pts[i], session[:])
	})
	step("seal-frame", func(i int) {
		frame, _ = sealer.Seal(frame[:0], &k, session, uint64(i), pts[i], format.ModeEncryptedV2, nonce)
	})
	step("frame-digest", func(i int) { format.PayloadFrameDigest(frames[i]) })
	v1keys := format.NewEventKeyDeriver(1, ek)
	step("v1-event-key", func(i int) { v1keys.Derive(uint64(i)) })
	step("v1-commitment", func(i int) { format.Commitment(&k, session, uint64(i), pts[i]) })
	step("v1-aes-256-gcm", func(i int) {
		block, _ := aes.NewCipher(k[:format.KeySize])
		gcm, _ := cipher.NewGCM(block)
		frame = gcm.Seal(frame[:0], nonce[:], pts[i], session[:])
	})
	step("v1-seal-frame", func(i int) {
		frame, _ = sealer.Seal(frame[:0], &k, session, uint64(i), pts[i], format.ModeEncrypted, nonce)
	})
	step("clock", func(int) { time.Now() })
	step("envelope", func(i int) {
		env := envelopeOf(&events[i], session, uint64(i), frames[i], format.Digest{})
		buf.Reset()
		format.EncodeEnvelopeTo(&buf, &env)
	})
	step("record-digest", func(i int) { format.RecordDigest(encs[i]) })
	w := newFloorWriter(b)
	step("tree+epochs", func(i int) { w.extend(digests[i], session) })
	step("append", func(i int) {
		w.payloads.Append(frames[i])
		w.records.Append(encs[i])
	})
	w.close(b)

	b.Run("floor", func(b *testing.B) {
		w := newFloorWriter(b)
		var env bytes.Buffer
		pt := new(bytes.Buffer)
		var last format.Digest
		wall, cpu := loop(b, func(i int) {
			seq := uint64(i)
			ev := &events[i%len(events)]
			pt.Reset()
			if err := format.EncodePayloadTo(pt, &ev.Payload); err != nil {
				b.Fatal(err)
			}
			k := keys.Derive(seq)
			frame, _ = sealer.Seal(frame[:0], &k, session, seq, pt.Bytes(), format.ModeEncryptedV2, nonce)
			e := envelopeOf(ev, session, seq, frame, last)
			env.Reset()
			if err := format.EncodeEnvelopeTo(&env, &e); err != nil {
				b.Fatal(err)
			}
			w.payloads.Append(frame)
			w.records.Append(env.Bytes())
			last = format.RecordDigest(env.Bytes())
			w.extend(last, session)
		})
		w.close(b)
		ratio(b, wall, cpu)
	})
	b.Run("recorder", func(b *testing.B) {
		r, err := recorder.Open(b.TempDir(), recorder.Options{Recorder: "bench", Encrypt: true, Sync: recorder.SyncNone, EpochMaxAge: -1})
		if err != nil {
			b.Fatal(err)
		}
		go func() {
			for range r.Sealed() {
			}
		}()
		ctx := context.Background()
		wall, cpu := loop(b, func(i int) {
			if _, err := r.Record(ctx, events[i%len(events)]); err != nil {
				b.Fatal(err)
			}
		})
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
		ratio(b, wall, cpu)
	})
}

func envelopeOf(ev *format.Event, session format.SessionID, seq uint64, frame []byte, prev format.Digest) format.Envelope {
	return format.Envelope{Version: format.Version, Recorder: "bench", Session: session, Seq: seq, Clock: seq + 1,
		Group: ev.Group, Time: time.Now().UnixNano(), Tool: ev.Tool, Kind: ev.Kind,
		Payload: format.PayloadFrameDigest(frame), Prev: prev}
}

// floorWriter holds the streams and the open epoch of the floor: records
// and payload frames appended to segment files, epochs of 100 sealed with
// a header.
type floorWriter struct {
	records, payloads, epochs *segment.Writer
	tree                      *format.Tree
	epoch, seq                uint64
	prevRoot                  format.Digest
}

func newFloorWriter(b *testing.B) *floorWriter {
	dir := b.TempDir()
	w := &floorWriter{tree: format.NewTree()}
	for _, s := range []struct {
		w    **segment.Writer
		kind string
	}{{&w.records, "records"}, {&w.payloads, "payloads"}, {&w.epochs, "epochs"}} {
		var err error
		if *s.w, _, err = segment.Open(filepath.Join(dir, s.kind), s.kind, 64<<20, nil); err != nil {
			b.Fatal(err)
		}
	}
	return w
}

// extend adds record digest d to the open epoch and seals it at 100.
func (w *floorWriter) extend(d format.Digest, session format.SessionID) {
	w.tree.Append(d)
	w.seq++
	if w.tree.Size() < 100 {
		return
	}
	h := format.EpochHeader{Version: format.Version, Recorder: "bench", Session: session, Epoch: w.epoch, FirstSeq: w.seq - 100, Count: 100,
		MerkleRoot: w.tree.Root(), LastRecord: d, PrevRoot: w.prevRoot, Time: time.Now().UnixNano()}
	enc, _ := format.EncodeEpochHeader(&h)
	w.epochs.Append(enc)
	w.prevRoot = format.EpochRoot(enc)
	w.tree = format.NewTree()
	w.epoch++
}

func (w *floorWriter) close(b *testing.B) {
	for _, s := range []*segment.Writer{w.records, w.payloads, w.epochs} {
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
