package checkpoint_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
)

// A key written by WriteKey, read with ReadCosigner, cosigns a checkpoint
// that then meets a 1-of-1 policy naming the key's vkey; a note without
// signatures is refused, and so is a verifier key as a signer key.
func TestReadCosigner(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.key")
	vkey, err := checkpoint.WriteKey(path, "watcher.example")
	if err != nil {
		t.Fatal(err)
	}
	s, err := checkpoint.ReadCosigner(path)
	if err != nil {
		t.Fatal(err)
	}
	op := newKey(t, 1, "example.com/operator")
	id := format.LogID("rec", format.SessionID{9})
	origin, err := checkpoint.Origin("", id)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := checkpoint.Sign(origin, digests(3, 1), op.signer)
	if err != nil {
		t.Fatal(err)
	}
	p, err := checkpoint.NewPolicy(op.vkey, []string{vkey}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkpoint.Verify(cp, p, id); !errors.Is(err, checkpoint.ErrPolicy) {
		t.Fatalf("before cosigning: %v, want ErrPolicy", err)
	}
	cosigned, err := checkpoint.Cosign(cp, s)
	if err != nil {
		t.Fatal(err)
	}
	c, err := checkpoint.Verify(cosigned, p, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Cosignatures) != 1 || c.Cosignatures[0].Witness != "watcher.example" {
		t.Fatalf("cosignatures %+v", c.Cosignatures)
	}
	if _, err := checkpoint.Cosign([]byte("afr.log/x\n3\nAAAA\n"), s); !errors.Is(err, checkpoint.ErrMalformed) {
		t.Fatalf("unsigned text: %v, want ErrMalformed", err)
	}
	if _, err := checkpoint.ReadCosigner(path + ".vkey"); err == nil {
		t.Fatal("a verifier key read as a signer key")
	}
}
