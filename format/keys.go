package format

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
)

// Key sizes.
const (
	KeySize      = 32 // master and epoch keys, and each half of an event key
	EventKeySize = 64 // K_enc ‖ K_com
	NonceSize    = 12 // AEAD nonce (AES-GCM and ChaCha20-Poly1305)
)

// Key-derivation labels (HKDF info prefixes), see docs/SPEC.md "Keys".
const (
	labelEpochKey = "AFR-v1 epoch key"
	labelEventKey = "AFR-v1 event key"
)

// ErrKeyErased is returned when an epoch's key material was destroyed.
var ErrKeyErased = errors.New("format: epoch key erased")

// EventKey is the per-event key disclosed to a third party to open one
// payload: K_enc (the AEAD key) ‖ K_com (the commitment HMAC's key of modes
// 0 and 1; mode 2 commits to all 64 bytes). It reveals nothing about any
// other event's key.
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

// DeriveEventKey derives the key K_e of event seq from its epoch's key K_t,
// as a log of format version does (docs/SPEC.md "Keys"):
//
//	version 1: HKDF-Expand-SHA256(K_t, label ‖ u64be(seq), 64)
//	version 2: AES-256(K_t, u64be(seq) ‖ u64be(i)) for i = 0, 1, 2, 3
func DeriveEventKey(version int, epochKey [KeySize]byte, seq uint64) EventKey {
	return NewEventKeyDeriver(version, epochKey).Derive(seq)
}

// EventKeyDeriver computes DeriveEventKey for one epoch, with what depends
// on K_t alone computed once: for version 1 the HMAC pad state of K_t
// (crypto/hkdf would redo it for every event), HKDF-Expand's
// T(1) = HMAC(K_t, info ‖ 0x01) and T(2) = HMAC(K_t, T(1) ‖ info ‖ 0x02),
// exactly RFC 5869 §2.3 for L = 64 (TestEventKeyMatchesHKDF checks it
// against crypto/hkdf); for version 2 the AES-256 key schedule of K_t, a
// PRF in counter mode that costs four block encryptions per event.
type EventKeyDeriver struct {
	mac   hash.Hash // version 1
	info  [len(labelEventKey) + 8 + 1]byte
	block cipher.Block // version 2
	in    [aes.BlockSize]byte
	t     [EventKeySize]byte // output, here rather than on a caller's stack, which the interfaces would move to the heap
}

// NewEventKeyDeriver returns a deriver of the event keys of one epoch of a
// log of format version.
func NewEventKeyDeriver(version int, epochKey [KeySize]byte) *EventKeyDeriver {
	if version >= 2 {
		block, err := aes.NewCipher(epochKey[:])
		if err != nil {
			panic(err) // only a key of another length fails
		}
		return &EventKeyDeriver{block: block}
	}
	d := &EventKeyDeriver{mac: hmac.New(sha256.New, epochKey[:])}
	copy(d.info[:], labelEventKey)
	return d
}

// Derive returns the key of event seq.
func (d *EventKeyDeriver) Derive(seq uint64) EventKey {
	if d.block != nil {
		binary.BigEndian.PutUint64(d.in[:8], seq)
		for i := range EventKeySize / aes.BlockSize {
			d.in[aes.BlockSize-1] = byte(i)
			d.block.Encrypt(d.t[i*aes.BlockSize:], d.in[:])
		}
		return EventKey(d.t)
	}
	n := len(labelEventKey)
	binary.BigEndian.PutUint64(d.info[n:], seq)
	d.info[n+8] = 1
	d.mac.Reset()
	d.mac.Write(d.info[:])
	d.mac.Sum(d.t[:0])
	d.info[n+8] = 2
	d.mac.Reset()
	d.mac.Write(d.t[:KeySize])
	d.mac.Write(d.info[:])
	d.mac.Sum(d.t[:KeySize])
	return EventKey(d.t)
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
