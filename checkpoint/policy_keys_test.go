package checkpoint_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
)

// A policy counts a public key once: the same Ed25519 key under another
// name, or the operator's key given as a witness (read as type 0x04, so
// with another key hash), is refused — otherwise one witness would meet a
// 2-of-2 policy and the operator alone a 1-of-1 (found by an outside
// review).
func TestPolicyCountsAKeyOnce(t *testing.T) {
	op, w := newKey(t, 1, "op"), newKey(t, 2, "w1")
	raw, _ := base64.StdEncoding.DecodeString(strings.SplitN(w.vkey, "+", 3)[2])
	alias, err := note.NewEd25519VerifierKey("w2", ed25519.PublicKey(raw[1:]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkpoint.NewPolicy(op.vkey, []string{w.vkey, alias}, 2); err == nil {
		t.Errorf("one witness key under two names accepted as two witnesses")
	}
	if p, err := checkpoint.NewPolicy(op.vkey, []string{op.vkey}, 1); err == nil {
		// End to end: the operator alone "cosigns" and meets the policy.
		id := format.LogID("rec", format.SessionID{7})
		origin, _ := checkpoint.Origin("", id)
		cp, err := checkpoint.Sign(origin, digests(3, 1), op.signer)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := checkpoint.Verify(cosign(t, cp, witnessSigner(t, op)), p, id); err == nil {
			t.Errorf("the operator's own key accepted as a witness: a self-cosigned checkpoint meets 1-of-1 (%d cosignatures)", len(c.Cosignatures))
		}
	}
}

// A key that does not parse is a *KeyError saying which kind was wanted:
// the operator's verifier key given to NewPolicy, a signer key file read
// by ReadSigner.
func TestKeyError(t *testing.T) {
	var ke *checkpoint.KeyError
	if _, err := checkpoint.NewPolicy("not a key", nil, 0); !errors.As(err, &ke) || ke.Signer || ke.Key != "not a key" || !strings.Contains(err.Error(), "want name+hash+key") {
		t.Errorf("NewPolicy of a malformed key: %v, want a *KeyError for a verifier key", err)
	}
	path := filepath.Join(t.TempDir(), "op.key")
	if err := os.WriteFile(path, []byte(newKey(t, 1, "op").vkey), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := checkpoint.ReadSigner(path); !errors.As(err, &ke) || !ke.Signer || ke.Key != path || !strings.Contains(err.Error(), "want PRIVATE+KEY+name+hash+key") {
		t.Errorf("ReadSigner of a verifier key: %v, want a *KeyError for a signer key", err)
	}
}
