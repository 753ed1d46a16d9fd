package recorder

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
)

// Key sizes.
const (
	KeySize      = 32 // master and epoch keys, and each half of an event key
	EventKeySize = 64 // K_enc ‖ K_com
	NonceSize    = 12 // AES-GCM nonce
)

// Key-derivation labels (HKDF info prefixes), see docs/SPEC.md "Keys".
const (
	labelEpochKey = "AFR-v1 epoch key"
	labelEventKey = "AFR-v1 event key"
)

// ErrKeyErased is returned when an epoch's key material was destroyed.
var ErrKeyErased = errors.New("recorder: epoch key erased")

// EventKey is the per-event key disclosed to a third party to open one
// payload: K_enc (AES-256-GCM) ‖ K_com (commitment HMAC). It reveals nothing
// about any other event's key.
type EventKey [EventKeySize]byte

func (k *EventKey) enc() []byte { return k[:KeySize] }
func (k *EventKey) com() []byte { return k[KeySize:] }

// EpochKey derives K_t = HKDF-SHA256(ikm = master, salt = S_t,
// info = label ‖ session ‖ uint64be(epoch), L = 32). S_t is the epoch's
// random salt: destroying it (crypto-erasure) makes K_t underivable, even
// with the master key.
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

// DeriveEventKey derives K_e = HKDF-Expand-SHA256(K_t, label ‖ uint64be(seq), 64).
func DeriveEventKey(epochKey [KeySize]byte, seq uint64) EventKey {
	return newEventKeyDeriver(epochKey).derive(seq)
}

// eventKeyDeriver computes DeriveEventKey for one epoch with the HMAC pad
// state of K_t computed once, instead of once per event as crypto/hkdf
// would: HKDF-Expand's T(1) = HMAC(K_t, info ‖ 0x01) and
// T(2) = HMAC(K_t, T(1) ‖ info ‖ 0x02), exactly RFC 5869 §2.3 for L = 64.
// TestEventKeyMatchesHKDF checks it against crypto/hkdf.
type eventKeyDeriver struct {
	mac  hash.Hash
	info [len(labelEventKey) + 8 + 1]byte
}

func newEventKeyDeriver(epochKey [KeySize]byte) *eventKeyDeriver {
	d := &eventKeyDeriver{mac: hmac.New(sha256.New, epochKey[:])}
	copy(d.info[:], labelEventKey)
	return d
}

func (d *eventKeyDeriver) derive(seq uint64) EventKey {
	var k EventKey
	n := len(labelEventKey)
	binary.BigEndian.PutUint64(d.info[n:], seq)
	d.info[n+8] = 1
	d.mac.Reset()
	d.mac.Write(d.info[:])
	d.mac.Sum(k[:0])
	d.info[n+8] = 2
	d.mac.Reset()
	d.mac.Write(k[:KeySize])
	d.mac.Write(d.info[:])
	d.mac.Sum(k[:KeySize])
	return k
}

// Commitment returns C = HMAC-SHA256(K_com, session ‖ uint64be(seq) ‖ P) for
// payload plaintext P. HMAC-SHA256 is a PRF (no one without K_e can confirm
// a guessed P) and collision-resistant in (key, message) jointly (an operator
// choosing keys still cannot open C to two payloads), which together with
// decryption makes the scheme key-committing; see docs/SPEC.md.
func Commitment(k *EventKey, session SessionID, seq uint64, plaintext []byte) Digest {
	var pre [24]byte
	copy(pre[:16], session[:])
	binary.BigEndian.PutUint64(pre[16:], seq)
	return hmacSHA256(k.com(), pre[:], plaintext)
}

// hmacSHA256 is HMAC-SHA256 (RFC 2104) of prefix ‖ msg for a 32-byte key.
// crypto/hmac allocates about 500 bytes per key, and the recorder keys one
// HMAC per event; this hashes from stack buffers (or a pooled hash state
// for long messages) and allocates nothing. TestHMACMatchesStdlib checks it
// against crypto/hmac.
func hmacSHA256(key, prefix, msg []byte) Digest {
	var buf [64 + 1024]byte
	copy(buf[:64], key)
	for i := range buf[:64] {
		buf[i] ^= 0x36
	}
	var inner Digest
	if n := 64 + len(prefix) + len(msg); n <= len(buf) {
		copy(buf[64:], prefix)
		copy(buf[64+len(prefix):], msg)
		inner = sha256.Sum256(buf[:n])
	} else {
		// Long messages: variables declared here alone reach the heap.
		var pad [64]byte
		copy(pad[:], buf[:64])
		h := hasherPool.Get().(hash.Hash)
		h.Reset()
		h.Write(pad[:])
		h.Write(append([]byte(nil), prefix...)) // a copy: prefix stays on its caller's stack
		h.Write(msg)
		inner = Digest(h.Sum(nil))
		hasherPool.Put(h)
	}
	for i := range buf[:64] {
		buf[i] ^= 0x36 ^ 0x5c
	}
	copy(buf[64:], inner[:])
	return sha256.Sum256(buf[:64+len(inner)])
}

// Payload frame modes (first byte of a stored payload frame).
const (
	ModePlain     byte = 0 // mode ‖ C ‖ plaintext
	ModeEncrypted byte = 1 // mode ‖ C ‖ nonce ‖ AES-256-GCM(plaintext)
)

// SealPayload appends to dst the stored payload frame for plaintext under
// event key k and returns it. With encrypt false the plaintext is stored in
// the clear but still bound by the keyed commitment. Each event key
// encrypts one payload; nonce must still never repeat for the same key (the
// Recorder uses a random per-open prefix XOR the sequence number, so a
// sequence number reused after a crash gets a fresh nonce).
func SealPayload(dst []byte, k *EventKey, session SessionID, seq uint64, plaintext []byte, encrypt bool, nonce [NonceSize]byte) ([]byte, error) {
	c := Commitment(k, session, seq, plaintext)
	if !encrypt {
		dst = append(dst, ModePlain)
		dst = append(dst, c[:]...)
		return append(dst, plaintext...), nil
	}
	gcm, err := newGCM(k.enc())
	if err != nil {
		return nil, err
	}
	dst = append(dst, ModeEncrypted)
	dst = append(dst, c[:]...)
	dst = append(dst, nonce[:]...)
	// The commitment is the associated data: the ciphertext opens only
	// together with the commitment it was written with.
	return gcm.Seal(dst, nonce[:], plaintext, c[:]), nil
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
// for event seq of session. It fails with ErrPayloadFrame, ErrDecrypt or
// ErrCommitmentMismatch (wrapped) when the key or bytes are wrong.
func OpenPayload(k *EventKey, session SessionID, seq uint64, frame []byte) ([]byte, error) {
	if len(frame) < 33 {
		return nil, fmt.Errorf("%w: %d bytes", ErrPayloadFrame, len(frame))
	}
	var plaintext []byte
	switch frame[0] {
	case ModePlain:
		plaintext = frame[33:]
	case ModeEncrypted:
		if len(frame) < 33+NonceSize+16 {
			return nil, fmt.Errorf("%w: %d bytes", ErrPayloadFrame, len(frame))
		}
		gcm, err := newGCM(k.enc())
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
	if got := Commitment(k, session, seq, plaintext); !hmac.Equal(got[:], frame[1:33]) {
		return nil, ErrCommitmentMismatch
	}
	return plaintext, nil
}

// loadOrCreateMaster reads the master key file, creating it (mode 0600)
// with bytes from rnd if absent.
func loadOrCreateMaster(path string, rnd io.Reader) ([]byte, error) {
	_, err := os.Stat(path)
	if !errors.Is(err, os.ErrNotExist) {
		return readMaster(path)
	}
	k := make([]byte, KeySize)
	if _, err := io.ReadFull(rnd, k); err != nil {
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

// readMaster reads the master key file. A key file readable or writable by
// group or others is refused.
func readMaster(path string) ([]byte, error) {
	st, err := os.Stat(path)
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
