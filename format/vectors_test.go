package format_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
)

const vectorDir = "../fixtures/vectors"

type encodingVector struct {
	Desc          string          `json:"desc"`
	Type          string          `json:"type"`
	Valid         bool            `json:"valid"`
	CBOR          string          `json:"cbor"`
	Digest        string          `json:"digest"`
	ErrorContains string          `json:"error_contains"`
	Version       uint8           `json:"version"` // a payload's (its record's); absent: 1
	Decoded       json.RawMessage `json:"decoded"`
}

func loadVectors(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(vectorDir, dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no vectors in %s: %v", dir, err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = b
	}
	return out
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeAny decodes by vector type and returns the object, its canonical
// re-encoding and its digest (if the type has one). A payload is read as
// the payload of a record of version (1 when 0).
func decodeAny(typ string, version uint8, b []byte) (obj any, again []byte, digest string, err error) {
	switch typ {
	case "record":
		e, err := format.DecodeEnvelope(b)
		if err != nil {
			return nil, nil, "", err
		}
		again, _ = format.EncodeEnvelope(e)
		return e, again, format.RecordDigest(b).String(), nil
	case "payload":
		p, err := format.DecodePayload(b)
		if err != nil {
			return nil, nil, "", err
		}
		if err := p.CheckVersion(max(1, version)); err != nil {
			return nil, nil, "", err
		}
		again, _ = format.EncodePayload(p)
		return p, again, "", nil
	case "epoch_header":
		h, err := format.DecodeEpochHeader(b)
		if err != nil {
			return nil, nil, "", err
		}
		again, _ = format.EncodeEpochHeader(h)
		return h, again, format.EpochRoot(b).String(), nil
	}
	return nil, nil, "", errors.New("unknown vector type " + typ)
}

func TestEncodingVectors(t *testing.T) {
	for name, raw := range loadVectors(t, "encoding") {
		t.Run(name, func(t *testing.T) {
			var v encodingVector
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			obj, again, digest, err := decodeAny(v.Type, v.Version, unhex(t, v.CBOR))
			if !v.Valid {
				if err == nil {
					t.Fatalf("%s: accepted, want rejection", v.Desc)
				}
				if !strings.Contains(err.Error(), v.ErrorContains) {
					t.Fatalf("%s: error %q does not mention %q", v.Desc, err, v.ErrorContains)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", v.Desc, err)
			}
			if !bytes.Equal(again, unhex(t, v.CBOR)) {
				t.Fatalf("re-encoding differs")
			}
			if digest != v.Digest {
				t.Fatalf("digest %s, want %s", digest, v.Digest)
			}
			j, _ := json.Marshal(obj)
			var a, b any
			json.Unmarshal(j, &a)
			json.Unmarshal(v.Decoded, &b)
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if !bytes.Equal(ja, jb) {
				t.Fatalf("decoded object differs:\n got %s\nwant %s", ja, jb)
			}
		})
	}
}

func TestCryptoVectors(t *testing.T) {
	for name, raw := range loadVectors(t, "crypto") {
		t.Run(name, func(t *testing.T) {
			var v struct {
				Master, Salt, Session, Plaintext, Nonce string
				Epoch, Seq                              uint64
				Version                                 int
				Encrypt                                 bool
				EpochKey                                string `json:"epoch_key"`
				EventKey                                string `json:"event_key"`
				Commitment, Frame                       string
				FrameDigest                             string `json:"frame_digest"`
				Malformed                               bool
			}
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			var session format.SessionID
			copy(session[:], unhex(t, v.Session))
			ek, err := format.EpochKey(unhex(t, v.Master), unhex(t, v.Salt), session, v.Epoch)
			if err != nil || hex.EncodeToString(ek[:]) != v.EpochKey {
				t.Fatalf("epoch key %x (%v), want %s", ek, err, v.EpochKey)
			}
			k := format.DeriveEventKey(max(v.Version, 1), ek, v.Seq)
			if hex.EncodeToString(k[:]) != v.EventKey {
				t.Fatalf("event key %x, want %s", k, v.EventKey)
			}
			pt := unhex(t, v.Plaintext)
			mode := format.FrameMode(max(v.Version, 1), v.Encrypt)
			c := format.Commitment(&k, session, v.Seq, pt)
			if mode == format.ModeEncryptedV2 {
				c = format.KeyCommitment(&k)
			}
			if c.String() != v.Commitment {
				t.Fatalf("commitment %s, want %s", c, v.Commitment)
			}
			if v.Malformed {
				frame := unhex(t, v.Frame)
				if format.PayloadFrameDigest(frame).String() != v.FrameDigest {
					t.Fatal("frame digest differs")
				}
				if _, err := format.OpenPayload(&k, session, v.Seq, frame); !errors.Is(err, format.ErrPayloadFrame) {
					t.Fatalf("open: %v, want ErrPayloadFrame", err)
				}
				return
			}
			var nonce [format.NonceSize]byte
			copy(nonce[:], unhex(t, v.Nonce))
			frame, _ := format.SealPayload(nil, &k, session, v.Seq, pt, mode, nonce)
			if hex.EncodeToString(frame) != v.Frame || format.PayloadFrameDigest(frame).String() != v.FrameDigest || frame[0] != mode {
				t.Fatal("payload frame or its digest differs")
			}
			got, err := format.OpenPayload(&k, session, v.Seq, unhex(t, v.Frame))
			if err != nil || !bytes.Equal(got, pt) {
				t.Fatalf("open: %v", err)
			}
			// The same frame is bound to its position: another seq fails.
			if _, err := format.OpenPayload(&k, session, v.Seq+1, frame); err == nil {
				t.Fatal("frame opened at another sequence number")
			}
		})
	}
}

func TestMerkleVectors(t *testing.T) {
	for name, raw := range loadVectors(t, "merkle") {
		t.Run(name, func(t *testing.T) {
			var v struct {
				Leaves     []format.Digest
				LeafHashes []format.Digest `json:"leaf_hashes"`
				Root       format.Digest
				Proofs     [][]format.Digest
			}
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			if len(v.LeafHashes) != len(v.Leaves) {
				t.Fatalf("%d leaf hashes for %d leaves", len(v.LeafHashes), len(v.Leaves))
			}
			for i, d := range v.Leaves {
				if format.LeafHash(d) != v.LeafHashes[i] {
					t.Fatalf("leaf %d: hash %s, want %s", i, format.LeafHash(d), v.LeafHashes[i])
				}
			}
			if got := format.MerkleRoot(v.Leaves); got != v.Root {
				t.Fatalf("root %s, want %s", got, v.Root)
			}
			for i, p := range v.Proofs {
				if err := format.VerifyInclusion(v.Leaves[i], uint64(i), uint64(len(v.Leaves)), p, v.Root); err != nil {
					t.Fatalf("leaf %d: %v", i, err)
				}
				if err := format.VerifyInclusion(v.Leaves[(i+1)%len(v.Leaves)], uint64(i), uint64(len(v.Leaves)), p, v.Root); err == nil && len(v.Leaves) > 1 {
					t.Fatalf("leaf %d: proof accepted another leaf", i)
				}
			}
		})
	}
}

func TestSegmentVectors(t *testing.T) {
	for name, raw := range loadVectors(t, "segment") {
		t.Run(name, func(t *testing.T) {
			var v struct {
				File, Kind          string
				Valid, Torn, Marked bool
				Durable             uint64
				Frames              []string
			}
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			// The file is the only, hence last, file of its stream.
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, v.Kind+"-0000000000000000.seg"), unhex(t, v.File), 0o600); err != nil {
				t.Fatal(err)
			}
			var got []string
			visit := func(f segment.Frame) error {
				got = append(got, hex.EncodeToString(f.Data))
				return nil
			}
			var err error
			if v.Marked {
				err = segment.ReadAllDurable(dir, v.Kind, v.Durable, visit)
			} else {
				err = segment.ReadAll(dir, v.Kind, visit)
			}
			if (err == nil) != v.Valid {
				t.Fatalf("valid=%v but scan error %v", v.Valid, err)
			}
			if strings.Join(got, ",") != strings.Join(v.Frames, ",") {
				t.Fatalf("frames %v, want %v", got, v.Frames)
			}
			var ce *segment.CorruptError
			if !v.Valid && !v.Torn && !errors.As(err, &ce) {
				t.Fatalf("damage reported as %v, want corruption", err)
			}
			var te *segment.TornTailError
			if v.Torn && !errors.As(err, &te) {
				t.Fatalf("damage reported as %v, want a torn tail", err)
			}
		})
	}
}

func TestMarkVectors(t *testing.T) {
	for name, raw := range loadVectors(t, "durable") {
		t.Run(name, func(t *testing.T) {
			var v struct {
				File                       string
				Valid                      bool
				Generation, Events, Epochs uint64
			}
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			m, err := format.DecodeMark(unhex(t, v.File))
			if !v.Valid {
				if !errors.Is(err, format.ErrNoMark) {
					t.Fatalf("DecodeMark = %+v, %v; want ErrNoMark", m, err)
				}
				return
			}
			if want := (format.Mark{Generation: v.Generation, Events: v.Events, Epochs: v.Epochs}); err != nil || m != want {
				t.Fatalf("DecodeMark = %+v, %v; want %+v", m, err, want)
			}
		})
	}
}

// The checked-in vectors must be exactly what the generator writes today.
func TestVectorsUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the generator")
	}
	tmp := t.TempDir()
	cmd := exec.Command("go", "run", "./fixtures/vectors/gen", tmp)
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generator: %v\n%s", err, out)
	}
	for _, dir := range []string{"encoding", "crypto", "merkle", "segment", "bundle", "anchoring", "log"} {
		want, _ := filepath.Glob(filepath.Join(tmp, dir, "*.json"))
		have, _ := filepath.Glob(filepath.Join(vectorDir, dir, "*.json"))
		if len(want) != len(have) {
			t.Fatalf("%s: %d vectors checked in, generator writes %d (run make vectors)", dir, len(have), len(want))
		}
		for _, w := range want {
			a, _ := os.ReadFile(w)
			b, _ := os.ReadFile(filepath.Join(vectorDir, dir, filepath.Base(w)))
			if !bytes.Equal(a, b) {
				t.Fatalf("%s/%s is stale (run make vectors)", dir, filepath.Base(w))
			}
		}
	}
}

// TestAnchoringVectors checks the log id and aggregate batch vectors
// (docs/SPEC.md, "Log id" and "Aggregate batches").
func TestAnchoringVectors(t *testing.T) {
	for name, raw := range loadVectors(t, "anchoring") {
		t.Run(name, func(t *testing.T) {
			var v struct {
				Desc, Type, Recorder, Session string
				LogID                         string `json:"log_id"`
				Valid                         bool
				Batch                         uint64
				Entries                       []format.BatchEntry
				Packed                        string
				EntryDigests                  []format.Digest `json:"entry_digests"`
				MerkleRoot                    string          `json:"merkle_root"`
				BatchRoot                     string          `json:"batch_root"`
				ErrorContains                 string          `json:"error_contains"`
			}
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			switch v.Type {
			case "log_id":
				var s format.SessionID
				copy(s[:], unhex(t, v.Session))
				if got := format.LogID(v.Recorder, s).String(); got != v.LogID {
					t.Fatalf("%s: log id %s, want %s", v.Desc, got, v.LogID)
				}
			case "batch":
				entries, err := format.DecodeBatchEntries(unhex(t, v.Packed))
				if !v.Valid {
					if err == nil || !strings.Contains(err.Error(), v.ErrorContains) {
						t.Fatalf("%s: error %v, want one containing %q", v.Desc, err, v.ErrorContains)
					}
					return
				}
				if err != nil || len(entries) != len(v.Entries) {
					t.Fatalf("%s: decoded %d entries (%v), want %d", v.Desc, len(entries), err, len(v.Entries))
				}
				ds := make([]format.Digest, len(entries))
				for i, e := range entries {
					if e != v.Entries[i] {
						t.Fatalf("entry %d decodes to %+v, want %+v", i, e, v.Entries[i])
					}
					if ds[i] = e.Digest(); ds[i] != v.EntryDigests[i] {
						t.Fatalf("entry %d digest %s, want %s", i, ds[i], v.EntryDigests[i])
					}
				}
				if got := format.MerkleRoot(ds).String(); got != v.MerkleRoot {
					t.Fatalf("merkle root %s, want %s", got, v.MerkleRoot)
				}
				if got, err := format.BatchRoot(v.Batch, entries); err != nil || got.String() != v.BatchRoot {
					t.Fatalf("batch root %s (%v), want %s", got, err, v.BatchRoot)
				}
			default:
				t.Fatalf("unknown vector type %q", v.Type)
			}
		})
	}
}
