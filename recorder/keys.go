package recorder

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// Key sizes.
const (
	KeySize   = 32 // master, epoch and event keys
	NonceSize = 12 // AES-GCM nonce
)

// Key-derivation labels (HKDF info prefixes), see docs/SPEC.md "Keys".
const (
	labelEpochKey    = "AFR-v1 epoch key"
	labelEventKey    = "AFR-v1 event key"
	labelPayloadKeys = "AFR-v1 payload keys"
)

// ErrKeyErased is returned when an epoch's key material was destroyed.
var ErrKeyErased = errors.New("recorder: epoch key erased")

// EventKey is the per-event key disclosed to a third party to open one
// payload. It reveals nothing about any other event's key.
type EventKey [KeySize]byte

// EpochKey derives K_t = HKDF-SHA256(ikm = master, salt = S_t,
// info = label ‖ session ‖ uint64be(epoch)). S_t is the epoch's random salt:
// destroying it (crypto-erasure) makes K_t underivable, even with the master.
func EpochKey(master, salt []byte, session SessionID, epoch uint64) ([KeySize]byte, error) {
	info := make([]byte, 0, len(labelEpochKey)+16+8)
	info = append(info, labelEpochKey...)
	info = append(info, session[:]...)
	info = binary.BigEndian.AppendUint64(info, epoch)
	k, err := hkdf.Key(sha256.New, master, salt, string(info), KeySize)
	var out [KeySize]byte
	copy(out[:], k)
	return out, err
}

// DeriveEventKey derives K_e = HKDF-Expand-SHA256(K_t, label ‖ uint64be(seq)).
func DeriveEventKey(epochKey [KeySize]byte, seq uint64) EventKey {
	var info [len(labelEventKey) + 8]byte
	copy(info[:], labelEventKey)
	binary.BigEndian.PutUint64(info[len(labelEventKey):], seq)
	k, _ := hkdf.Expand(sha256.New, epochKey[:], string(info[:]), KeySize) // cannot fail for 32 bytes
	var out EventKey
	copy(out[:], k)
	return out
}

// payloadKeys splits an event key into the AES-256-GCM key and the
// commitment (HMAC) key: K_enc ‖ K_com = HKDF-Expand(K_e, label, 64).
func payloadKeys(k EventKey) (enc, com []byte) {
	b, _ := hkdf.Expand(sha256.New, k[:], labelPayloadKeys, 2*KeySize)
	return b[:KeySize], b[KeySize:]
}

// Commitment returns C = HMAC-SHA256(K_com, session ‖ uint64be(seq) ‖ P) for
// payload plaintext P. HMAC-SHA256 is a PRF (no one without K_e can confirm
// a guessed P) and collision-resistant in (key, message) jointly (an operator
// choosing keys still cannot open C to two payloads), which together with
// decryption makes the scheme key-committing; see docs/SPEC.md.
func Commitment(k EventKey, session SessionID, seq uint64, plaintext []byte) Digest {
	_, com := payloadKeys(k)
	return commitment(com, session, seq, plaintext)
}

func commitment(com []byte, session SessionID, seq uint64, plaintext []byte) Digest {
	m := hmac.New(sha256.New, com)
	var pre [24]byte
	copy(pre[:16], session[:])
	binary.BigEndian.PutUint64(pre[16:], seq)
	m.Write(pre[:])
	m.Write(plaintext)
	var d Digest
	m.Sum(d[:0])
	return d
}

// Payload frame modes (first byte of a stored payload frame).
const (
	ModePlain     byte = 0 // mode ‖ C ‖ plaintext
	ModeEncrypted byte = 1 // mode ‖ C ‖ nonce ‖ AES-256-GCM(plaintext)
)

// SealPayload builds the stored payload frame for plaintext under event key
// k. With encrypt false the plaintext is stored in the clear but still bound
// by the keyed commitment.
func SealPayload(k EventKey, session SessionID, seq uint64, plaintext []byte, encrypt bool, rnd io.Reader) ([]byte, error) {
	enc, com := payloadKeys(k)
	c := commitment(com, session, seq, plaintext)
	if !encrypt {
		out := make([]byte, 0, 1+32+len(plaintext))
		out = append(out, ModePlain)
		out = append(out, c[:]...)
		return append(out, plaintext...), nil
	}
	gcm, err := newGCM(enc)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 1+32+NonceSize, 1+32+NonceSize+len(plaintext)+gcm.Overhead())
	out[0] = ModeEncrypted
	copy(out[1:], c[:])
	nonce := out[33 : 33+NonceSize]
	if _, err := io.ReadFull(rnd, nonce); err != nil {
		return nil, fmt.Errorf("recorder: nonce: %w", err)
	}
	// The commitment is the associated data: the ciphertext opens only
	// together with the commitment it was written with.
	return gcm.Seal(out, nonce, plaintext, out[1:33]), nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// Errors from OpenPayload, kept apart so a verifier can tell them apart.
var (
	ErrPayloadFrame       = errors.New("recorder: malformed payload frame")
	ErrDecrypt            = errors.New("recorder: payload does not decrypt under the event key")
	ErrCommitmentMismatch = errors.New("recorder: payload does not match its commitment")
)

// PayloadFrameDigest is the envelope's payload field: SHA-256(domain ‖
// frame). It binds the stored bytes (ciphertext or plaintext) to the record,
// so a payload edited or swapped in storage is detected without any key.
func PayloadFrameDigest(frame []byte) Digest { return hashWithDomain(domainPayload, frame) }

// OpenPayload recovers and checks the plaintext of a stored payload frame
// for event seq of session. It fails with ErrDecrypt or
// ErrCommitmentMismatch (wrapped) when the key or bytes are wrong.
func OpenPayload(k EventKey, session SessionID, seq uint64, frame []byte) ([]byte, error) {
	if len(frame) < 33 {
		return nil, fmt.Errorf("%w: %d bytes", ErrPayloadFrame, len(frame))
	}
	enc, com := payloadKeys(k)
	var c Digest
	copy(c[:], frame[1:33])
	var plaintext []byte
	switch frame[0] {
	case ModePlain:
		plaintext = frame[33:]
	case ModeEncrypted:
		if len(frame) < 33+NonceSize+16 {
			return nil, fmt.Errorf("%w: %d bytes", ErrPayloadFrame, len(frame))
		}
		gcm, err := newGCM(enc)
		if err != nil {
			return nil, err
		}
		plaintext, err = gcm.Open(nil, frame[33:33+NonceSize], frame[33+NonceSize:], frame[1:33])
		if err != nil {
			return nil, ErrDecrypt
		}
	default:
		return nil, fmt.Errorf("%w: mode %d", ErrPayloadFrame, frame[0])
	}
	if got := commitment(com, session, seq, plaintext); !hmac.Equal(got[:], c[:]) {
		return nil, ErrCommitmentMismatch
	}
	return plaintext, nil
}

// loadOrCreateMaster reads the master key file, creating it (mode 0600) with
// fresh random bytes if absent. A key file readable or writable by group or
// others is refused.
func loadOrCreateMaster(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		k := make([]byte, KeySize)
		if _, err := rand.Read(k); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, err
		}
		if _, err := f.Write(k); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, err
		}
		return k, f.Close()
	}
	if err != nil {
		return nil, err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("recorder: master key %s has mode %04o; it must not be accessible to group or others (hint: chmod 600 %s)", path, st.Mode().Perm(), path)
	}
	k, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(k) != KeySize {
		return nil, fmt.Errorf("recorder: master key %s is %d bytes, want %d", path, len(k), KeySize)
	}
	return k, nil
}
