package recorder_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
)

func sampleEvent(i int) format.Event {
	exit := int64(i % 3)
	return format.Event{
		Tool: "shell",
		Kind: format.KindToolCall,
		Payload: format.Payload{
			Intent:    &format.Intent{Tool: "shell", Args: map[string]any{"cmd": "ls -la", "n": uint64(i)}},
			Execution: &format.Execution{Status: format.StatusOK, ExitCode: &exit},
		},
	}
}

// recordN records sampleEvent(0) … sampleEvent(n-1), failing the test on an error.
func recordN(t *testing.T, r *recorder.Recorder, n int) {
	t.Helper()
	for i := range n {
		if _, err := r.Record(context.Background(), sampleEvent(i)); err != nil {
			t.Fatal(err)
		}
	}
}

// openT is logtest.Open with the recorder id "test-recorder" when o names
// none.
func openT(t *testing.T, dir string, o recorder.Options) *recorder.Recorder {
	t.Helper()
	if o.Recorder == "" {
		o.Recorder = "test-recorder"
	}
	return logtest.Open(t, dir, o)
}

// readAll decodes every record of a store and checks the chain links.
func readAll(t *testing.T, dir string) []*format.Envelope {
	t.Helper()
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []*format.Envelope
	var prev format.Digest
	err = l.Records(func(seq uint64, raw []byte) error {
		e, err := format.DecodeEnvelope(raw)
		if err != nil {
			return err
		}
		if e.Seq != seq {
			t.Errorf("record %d has seq %d", seq, e.Seq)
		}
		if e.Prev != prev {
			t.Errorf("record %d: prev %v, want %v", seq, e.Prev, prev)
		}
		prev = format.RecordDigest(raw)
		out = append(out, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRecordChainsAndSeals(t *testing.T) {
	for _, policy := range []recorder.SyncPolicy{recorder.SyncGroup, recorder.SyncEvent, recorder.SyncWrite, recorder.SyncNone} {
		t.Run(policy.String(), func(t *testing.T) {
			dir := t.TempDir()
			r := openT(t, dir, recorder.Options{EpochSize: 10, Sync: policy, Encrypt: true})
			var sealed []recorder.SealedEpoch
			done := make(chan struct{})
			go func() {
				for s := range r.Sealed() {
					sealed = append(sealed, s)
				}
				close(done)
			}()
			for i := 0; i < 25; i++ {
				rc, err := r.Record(context.Background(), sampleEvent(i))
				if err != nil {
					t.Fatal(err)
				}
				if rc.Seq != uint64(i) || rc.Epoch != uint64(i/10) {
					t.Fatalf("receipt %+v for event %d", rc, i)
				}
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			<-done
			envs := readAll(t, dir)
			if len(envs) != 25 {
				t.Fatalf("%d records, want 25", len(envs))
			}
			// 10 + 10 sealed by size; the last 5 by Close (not announced
			// after the channel closed, but on disk).
			l, _ := recorder.OpenLog(dir)
			var headers []*format.EpochHeader
			l.Epochs(func(_ uint64, raw []byte) error {
				h, err := format.DecodeEpochHeader(raw)
				headers = append(headers, h)
				return err
			})
			if len(headers) != 3 || headers[2].Count != 5 || headers[2].FirstSeq != 20 {
				t.Fatalf("headers: %+v", headers)
			}
			if len(sealed) < 2 {
				t.Fatalf("announced %d epochs, want at least 2", len(sealed))
			}
			for i, s := range sealed {
				root, _ := headers[i].Root()
				if s.Root != root {
					t.Errorf("announced root %d differs from stored header", i)
				}
				if i > 0 && s.Header.PrevRoot != sealed[i-1].Root {
					t.Errorf("epoch %d prev root does not link", i)
				}
			}
			for i, h := range headers {
				var digests []format.Digest
				l.Records(func(seq uint64, raw []byte) error {
					if seq >= h.FirstSeq && seq < h.FirstSeq+h.Count {
						digests = append(digests, format.RecordDigest(raw))
					}
					return nil
				})
				if format.MerkleRoot(digests) != h.MerkleRoot {
					t.Errorf("epoch %d Merkle root mismatch", i)
				}
				if digests[len(digests)-1] != h.LastRecord {
					t.Errorf("epoch %d last record mismatch", i)
				}
			}
		})
	}
}

func TestConcurrentRecordIsGapless(t *testing.T) {
	dir := t.TempDir()
	r := openT(t, dir, recorder.Options{EpochSize: 7})
	const workers, each = 8, 50
	var wg sync.WaitGroup
	seen := make([]bool, workers*each)
	var mu sync.Mutex
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				ev := sampleEvent(i)
				ev.Group = "g"
				rc, err := r.Record(context.Background(), ev)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[rc.Seq] {
					t.Errorf("seq %d assigned twice", rc.Seq)
				}
				seen[rc.Seq] = true
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	envs := readAll(t, dir)
	if len(envs) != workers*each {
		t.Fatalf("%d records, want %d", len(envs), workers*each)
	}
	for i, e := range envs {
		if e.Clock != uint64(i)+1 || e.Group != "g" {
			t.Fatalf("record %d: clock %d group %q", i, e.Clock, e.Group)
		}
	}
}

func TestLogicalClockFollowsRemoteEvents(t *testing.T) {
	r := openT(t, t.TempDir(), recorder.Options{})
	defer r.Close()
	ev := sampleEvent(0)
	ev.After = 1000
	rc, err := r.Record(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	rc2, _ := r.Record(context.Background(), sampleEvent(1))
	if rc.Clock != 1001 || rc2.Clock != 1002 {
		t.Fatalf("clocks %d, %d; want 1001, 1002", rc.Clock, rc2.Clock)
	}
}

func TestReopenContinuesChain(t *testing.T) {
	dir := t.TempDir()
	r := openT(t, dir, recorder.Options{EpochSize: 4})
	recordN(t, r, 6)
	// Leave two events in the open epoch, then reopen without Close:
	// everything was fsynced by the default group policy.
	if _, _, err := r.Seal(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r = openT(t, dir, recorder.Options{EpochSize: 4})
	if !r.Recovery().Clean() {
		t.Fatalf("unexpected repair: %+v", r.Recovery())
	}
	rc, err := r.Record(context.Background(), sampleEvent(6))
	if err != nil {
		t.Fatal(err)
	}
	if rc.Seq != 6 || rc.Epoch != 2 || rc.Clock != 7 {
		t.Fatalf("receipt after reopen: %+v", rc)
	}
	r.Close()
	if n := len(readAll(t, dir)); n != 7 {
		t.Fatalf("%d records, want 7", n)
	}
}

func TestTimeSealing(t *testing.T) {
	r := openT(t, t.TempDir(), recorder.Options{EpochSize: 1000, EpochMaxAge: 20 * time.Millisecond})
	defer r.Close()
	if _, err := r.Record(context.Background(), sampleEvent(0)); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-r.Sealed():
		if s.Header.Count != 1 {
			t.Fatalf("sealed %d events, want 1", s.Header.Count)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("epoch not sealed by age")
	}
}

// Stores of either format version encrypt every payload in their
// version's mode under the event keys, and keep their version when
// reopened.
func TestPayloadRoundTripAndKeys(t *testing.T) {
	for _, version := range []int{1, 2} {
		t.Run(fmt.Sprintf("version-%d", version), func(t *testing.T) { testPayloadRoundTripAndKeys(t, version) })
	}
}

func testPayloadRoundTripAndKeys(t *testing.T, version int) {
	dir := t.TempDir()
	r := openT(t, dir, recorder.Options{Encrypt: true, EpochSize: 3, FormatVersion: version})
	recordN(t, r, 3) // epoch 0, sealed by size
	r.Close()
	r = openT(t, dir, recorder.Options{})
	for i := 3; i < 5; i++ {
		if _, err := r.Record(context.Background(), sampleEvent(i)); err != nil {
			t.Fatal(err)
		}
	}
	m := r.Manifest()
	r.Close()
	if m.Version != version {
		t.Fatalf("manifest version %d, want %d", m.Version, version)
	}
	kr, err := recorder.OpenKeyring(filepath.Join(dir, "keys"), m.Session)
	if err != nil {
		t.Fatal(err)
	}
	defer kr.Close()
	l, _ := recorder.OpenLog(dir)
	var records [][]byte
	l.Records(func(_ uint64, raw []byte) error { records = append(records, raw); return nil })
	err = l.Payloads(func(seq uint64, frame []byte) error {
		env, _ := format.DecodeEnvelope(records[seq])
		if format.PayloadFrameDigest(frame) != env.Payload {
			t.Errorf("event %d: payload frame digest mismatch", seq)
		}
		if int(env.Version) != version || frame[0] != format.FrameMode(version, true) {
			t.Errorf("event %d: record version %d, frame mode %d in a store of version %d", seq, env.Version, frame[0], version)
		}
		k, err := kr.EventKey(version, seq/3, seq)
		if err != nil {
			return err
		}
		pt, err := format.OpenPayload(&k, m.Session, seq, frame)
		if err != nil {
			return err
		}
		p, err := format.DecodePayload(pt)
		if err != nil {
			return err
		}
		if p.Intent.Args["n"] != seq {
			t.Errorf("event %d: args %v", seq, p.Intent.Args)
		}
		// Another event's key opens nothing.
		other, _ := kr.EventKey(version, (seq+1)/3, seq+1)
		if _, err := format.OpenPayload(&other, m.Session, seq, frame); !errors.Is(err, format.ErrDecrypt) {
			t.Errorf("event %d opened with the key of event %d: %v", seq, seq+1, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Crypto-erasure of epoch 0.
	if err := kr.Erase(0); err != nil {
		t.Fatal(err)
	}
	if _, err := kr.EventKey(version, 0, 1); !errors.Is(err, format.ErrKeyErased) {
		t.Fatalf("key of erased epoch: %v", err)
	}
	if _, err := kr.EventKey(version, 1, 4); err != nil {
		t.Fatalf("erasing epoch 0 affected epoch 1: %v", err)
	}
}

func TestInclusionProofs(t *testing.T) {
	dir := t.TempDir()
	r := openT(t, dir, recorder.Options{EpochSize: 13})
	recordN(t, r, 40)
	r.Close()
	l, _ := recorder.OpenLog(dir)
	roots := map[format.Digest]bool{}
	l.Epochs(func(_ uint64, raw []byte) error { roots[format.EpochRoot(raw)] = true; return nil })
	for seq := uint64(0); seq < 40; seq++ {
		p, err := l.InclusionProof(seq)
		if err != nil {
			t.Fatal(err)
		}
		root, err := p.Verify()
		if err != nil {
			t.Fatalf("event %d: %v", seq, err)
		}
		if !roots[root] {
			t.Fatalf("event %d: proof leads to an unknown root", seq)
		}
		// A flipped bit anywhere in the record or path fails.
		p.Record[len(p.Record)-1] ^= 1
		if _, err := p.Verify(); err == nil {
			t.Fatalf("event %d: tampered record verified", seq)
		}
		p.Record[len(p.Record)-1] ^= 1
		if len(p.Path) > 0 {
			p.Path[0][0] ^= 1
			if _, err := p.Verify(); err == nil {
				t.Fatalf("event %d: tampered path verified", seq)
			}
		}
	}
}

func TestMasterKeyPermissions(t *testing.T) {
	dir := t.TempDir()
	r := openT(t, dir, recorder.Options{})
	r.Close()
	key := filepath.Join(dir, "keys", "master.key")
	st, _ := os.Stat(key)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("master key mode %04o, want 0600", st.Mode().Perm())
	}
	os.Chmod(key, 0o644)
	if _, err := recorder.Open(dir, recorder.Options{}); err == nil {
		t.Fatal("opened a store with a world-readable master key")
	}
}

func TestNewerVersionRefused(t *testing.T) {
	dir := t.TempDir()
	openT(t, dir, recorder.Options{}).Close()
	b, _ := os.ReadFile(filepath.Join(dir, "MANIFEST"))
	b = []byte(string(b[:0]) + `{"format":"afr-log","version":99,"recorder":"x","session":"00000000000000000000000000000000"}`)
	os.WriteFile(filepath.Join(dir, "MANIFEST"), b, 0o600)
	_, err := recorder.Open(dir, recorder.Options{})
	if !errors.Is(err, format.ErrNewerVersion) {
		t.Fatalf("got %v, want ErrNewerVersion", err)
	}
}

func TestRejectsInvalidEvents(t *testing.T) {
	r := openT(t, t.TempDir(), recorder.Options{})
	defer r.Close()
	bad := []format.Event{
		{Tool: "x", Kind: 0},
		{Tool: string(make([]byte, format.MaxStringLength+1)), Kind: format.KindToolCall},
		{Tool: "x", Kind: format.KindToolCall, Payload: format.Payload{Effects: []format.Effect{{}}}},
		{Tool: "x", Kind: format.KindToolCall, Payload: format.Payload{Policy: &format.PolicyEvaluation{Decision: 9}}},
	}
	for i, ev := range bad {
		if _, err := r.Record(context.Background(), ev); err == nil {
			t.Errorf("bad event %d accepted", i)
		}
	}
	// Rejections are not sticky.
	if _, err := r.Record(context.Background(), sampleEvent(0)); err != nil {
		t.Fatal(err)
	}
}

// A store whose key material is gone is refused: creating new keys would
// make every stored payload unreadable.
func TestMissingKeysRefused(t *testing.T) {
	for _, name := range []string{"master.key", "epoch-salts"} {
		dir := t.TempDir()
		r := openT(t, dir, recorder.Options{Encrypt: true})
		if _, err := r.Record(context.Background(), sampleEvent(0)); err != nil {
			t.Fatal(err)
		}
		r.Close()
		os.Remove(filepath.Join(dir, "keys", name))
		if _, err := recorder.Open(dir, recorder.Options{}); err == nil || !strings.Contains(err.Error(), "refusing to create new key material") {
			t.Fatalf("%s missing: got %v", name, err)
		}
	}
	// Keys created but the manifest not yet written (a crash in between):
	// the store is created with those keys.
	dir := t.TempDir()
	r := openT(t, dir, recorder.Options{})
	r.Close()
	master, _ := os.ReadFile(filepath.Join(dir, "keys", "master.key"))
	os.Remove(filepath.Join(dir, "MANIFEST"))
	r = openT(t, dir, recorder.Options{})
	r.Close()
	if again, _ := os.ReadFile(filepath.Join(dir, "keys", "master.key")); string(again) != string(master) {
		t.Fatal("the master key was replaced")
	}
}

// A format version this build does not write is refused before anything is
// created.
func TestFormatVersionOutOfRange(t *testing.T) {
	for _, v := range []int{-1, format.Version + 1} {
		dir := filepath.Join(t.TempDir(), "log")
		_, err := recorder.Open(dir, recorder.Options{Recorder: "r", FormatVersion: v})
		if err == nil || !strings.Contains(err.Error(), "format version") {
			t.Fatalf("format version %d: %v, want a refusal naming the format version", v, err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Fatalf("format version %d: %s created", v, dir)
		}
	}
}
