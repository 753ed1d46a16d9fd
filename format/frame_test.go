package format_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/agentflightrecorder/afr/format"
)

// Each way a frame can fail to open is told apart, in every mode: a wrong
// key does not decrypt (modes 1 and 2) or does not match the commitment
// (mode 0); an edited commitment or key commitment is a commitment
// mismatch, also in mode 2, where KC is not associated data and the
// ciphertext still decrypts; another position does not open.
func TestOpenPayloadFailures(t *testing.T) {
	var k, other format.EventKey
	for i := range k {
		k[i], other[i] = byte(i), byte(i+1)
	}
	session := format.SessionID{9}
	pt := []byte{0xa1, 0x09, 0xa1, 0x61, 'x', 0x01}
	nonce := [format.NonceSize]byte{7}
	for _, mode := range []byte{format.ModePlain, format.ModeEncrypted, format.ModeEncryptedV2} {
		frame, err := format.SealPayload(nil, &k, session, 5, pt, mode, nonce)
		if err != nil || frame[0] != mode {
			t.Fatalf("mode %d: seal: %v", mode, err)
		}
		if got, err := format.OpenPayload(&k, session, 5, frame); err != nil || !bytes.Equal(got, pt) {
			t.Fatalf("mode %d: open: %x, %v", mode, got, err)
		}
		wrongKey := format.ErrDecrypt
		if mode == format.ModePlain {
			wrongKey = format.ErrCommitmentMismatch
		}
		if _, err := format.OpenPayload(&other, session, 5, frame); !errors.Is(err, wrongKey) {
			t.Errorf("mode %d, another key: %v, want %v", mode, err, wrongKey)
		}
		edited := bytes.Clone(frame)
		edited[1] ^= 1
		if _, err := format.OpenPayload(&k, session, 5, edited); !errors.Is(err, format.ErrCommitmentMismatch) && !(mode == format.ModeEncrypted && errors.Is(err, format.ErrDecrypt)) {
			t.Errorf("mode %d, commitment edited: %v, want a commitment mismatch", mode, err)
		}
		if _, err := format.OpenPayload(&k, session, 6, frame); err == nil {
			t.Errorf("mode %d: opened at another sequence number", mode)
		}
		if _, err := format.OpenPayload(&k, format.SessionID{8}, 5, frame); err == nil {
			t.Errorf("mode %d: opened in another session", mode)
		}
	}
	if _, err := format.SealPayload(nil, &k, session, 5, pt, 3, nonce); !errors.Is(err, format.ErrPayloadFrame) {
		t.Fatalf("seal in mode 3: %v, want ErrPayloadFrame", err)
	}
}

// The key commitment is SHA-256 of its domain and K_enc alone: it depends
// on no plaintext (so it reveals none) and differs for every key.
func TestKeyCommitment(t *testing.T) {
	var k format.EventKey
	kc := format.KeyCommitment(&k)
	k[format.KeySize] ^= 1 // K_com is not committed to
	if format.KeyCommitment(&k) != kc {
		t.Fatal("KC depends on K_com")
	}
	k[0] ^= 1
	if format.KeyCommitment(&k) == kc {
		t.Fatal("two encryption keys share a KC")
	}
}
