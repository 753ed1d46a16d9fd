package checkpoint_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// seeded is a deterministic byte stream for reproducible keys.
type seeded struct{ r *rand.ChaCha8 }

func newSeeded(seed byte) *seeded {
	var s [32]byte
	s[0] = seed
	return &seeded{rand.NewChaCha8(s)}
}

func (s *seeded) Read(p []byte) (int, error) { return s.r.Read(p) }

// key is a note key pair.
type key struct {
	name, skey, vkey string
	signer           note.Signer
}

// newKey makes a deterministic Ed25519 note key.
func newKey(t testing.TB, seed byte, name string) key {
	t.Helper()
	skey, vkey, err := checkpoint.GenerateKey(newSeeded(seed), name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return key{name, skey, vkey, s}
}

// witnessSigner is the witness's cosignature/v1 signer of k, from
// transparency-dev/formats (timestamp: now).
func witnessSigner(t testing.TB, k key) note.Signer {
	t.Helper()
	s, err := fnote.NewSignerForCosignatureV1(k.skey)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fixedTimeCosigner is a cosignature/v1 Ed25519 signer with a fixed
// timestamp, written from C2SP tlog-cosignature for reproducible vectors;
// the vectors test checks its signatures with formats' verifier.
type fixedTimeCosigner struct {
	name string
	priv ed25519.PrivateKey
	time uint64
}

func newFixedTimeCosigner(t testing.TB, seed byte, name string, ts uint64) (*fixedTimeCosigner, string) {
	t.Helper()
	s := sha256.Sum256([]byte{seed})
	priv := ed25519.NewKeyFromSeed(s[:])
	vkey, err := note.NewEd25519VerifierKey(name, priv.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	vkey, err = fnote.VKeyToCosignatureV1(vkey)
	if err != nil {
		t.Fatal(err)
	}
	return &fixedTimeCosigner{name, priv, ts}, vkey
}

func (c *fixedTimeCosigner) Name() string { return c.name }
func (c *fixedTimeCosigner) KeyHash() uint32 {
	h := sha256.Sum256(append([]byte(c.name+"\n\x04"), c.priv.Public().(ed25519.PublicKey)...))
	return binary.BigEndian.Uint32(h[:4])
}
func (c *fixedTimeCosigner) Sign(msg []byte) ([]byte, error) {
	m := fmt.Appendf(nil, "cosignature/v1\ntime %d\n%s", c.time, msg)
	return append(binary.BigEndian.AppendUint64(nil, c.time), ed25519.Sign(c.priv, m)...), nil
}

// cosign appends the signatures of signers to the signed note cp.
func cosign(t testing.TB, cp []byte, signers ...note.Signer) []byte {
	t.Helper()
	for _, s := range signers {
		var err error
		if cp, err = checkpoint.Cosign(cp, s); err != nil {
			t.Fatal(err)
		}
	}
	return cp
}

// splitNote returns a note's text and signature block.
func splitNote(t testing.TB, n []byte) (text, sigs []byte) {
	t.Helper()
	for i := len(n) - 2; i >= 0; i-- {
		if n[i] == '\n' && n[i+1] == '\n' {
			return n[:i+1], n[i+2:]
		}
	}
	t.Fatalf("not a note: %q", n)
	return nil, nil
}

// testLog is a closed log loaded as an image, with its honest anchors.
type testLog struct {
	img    *tamper.Image
	leaves []format.Anchor
	id     format.Digest
}

// makeLog records n synthetic events in epochs of epochSize.
func makeLog(t testing.TB, n, epochSize int, seed uint64) *testLog {
	t.Helper()
	l := logtest.Write(t, recorder.Options{Recorder: fmt.Sprintf("op-%d", seed), EpochSize: epochSize, Sync: recorder.SyncNone, EpochMaxAge: -1}, workload.Generate(seed, n))
	id, err := l.LogID()
	if err != nil {
		t.Fatal(err)
	}
	img, err := tamper.Load(l)
	if err != nil {
		t.Fatal(err)
	}
	return &testLog{img: img, leaves: leavesOf(t, img), id: id}
}

func leavesOf(t testing.TB, src verifier.Source) []format.Anchor {
	t.Helper()
	as, err := checkpoint.Leaves(src)
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// sign returns the operator's checkpoint of the first size leaves of lg.
func (lg *testLog) sign(t testing.TB, op key, size int) checkpoint.Published {
	t.Helper()
	origin, err := checkpoint.Origin("", lg.id)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := checkpoint.Sign(origin, checkpoint.Roots(lg.leaves[:size]), op.signer)
	if err != nil {
		t.Fatal(err)
	}
	return checkpoint.Published{Name: fmt.Sprintf("checkpoint-%d", size), Note: cp, Leaves: lg.leaves[:size]}
}

func policy(t testing.TB, op key, min int, witnesses ...key) *checkpoint.Policy {
	t.Helper()
	var vks []string
	for _, w := range witnesses {
		vks = append(vks, w.vkey)
	}
	p, err := checkpoint.NewPolicy(op.vkey, vks, min)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
