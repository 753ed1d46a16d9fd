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

// A mode 2 frame opens only under the event key it commits to, every byte
// of it: K_com, which mode 2 does not use to decrypt, is committed to as
// well, so a disclosed key cannot be altered unnoticed.
func TestKeyCommitmentBindsTheWholeKey(t *testing.T) {
	var k format.EventKey
	session := format.SessionID{1}
	frame, err := format.SealPayload(nil, &k, session, 3, []byte{0xa0}, format.ModeEncryptedV2, [format.NonceSize]byte{})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, format.KeySize - 1, format.KeySize, format.EventKeySize - 1} {
		altered := k
		altered[i] ^= 1
		if _, err := format.OpenPayload(&altered, session, 3, frame); err == nil {
			t.Fatalf("opened with byte %d of the key altered", i)
		}
	}
}
