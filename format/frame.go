package format

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// Payload frame modes (first byte of a stored payload frame), docs/SPEC.md
// "Payload frames and commitments".
const (
	ModePlain     byte = 0 // mode ‖ C ‖ plaintext
	ModeEncrypted byte = 1 // mode ‖ C ‖ nonce ‖ AES-256-GCM(plaintext): format version 1
	// ModeEncryptedV2 is mode ‖ KC ‖ nonce ‖ ChaCha20-Poly1305(plaintext),
	// with KC a commitment to the event key rather than an HMAC over the
	// plaintext: format version 2.
	ModeEncryptedV2 byte = 2
)

// FrameMode returns the mode in which a writer of format version stores
// payloads, encrypted or not. Unencrypted payloads are mode 0 in every
// version.
func FrameMode(version int, encrypt bool) byte {
	switch {
	case !encrypt:
		return ModePlain
	case version < 2:
		return ModeEncrypted
	}
	return ModeEncryptedV2
}

// frameHeaderSize is the mode byte and the 32-byte commitment C (or key
// commitment KC) that start every payload frame.
const frameHeaderSize = 1 + 32

// PlainText returns the plaintext stored in a ModePlain frame, unchecked
// against its commitment (that needs the event key: OpenPayload), and false
// for an encrypted or malformed frame.
func PlainText(frame []byte) ([]byte, bool) {
	if len(frame) > frameHeaderSize && frame[0] == ModePlain {
		return frame[frameHeaderSize:], true
	}
	return nil, false
}

// SealPayload appends to dst the stored payload frame for plaintext under
// event key k in mode (FrameMode) and returns it. In ModePlain the
// plaintext is stored in the clear but still bound by the keyed
// commitment. Each event key encrypts one payload; nonce must still never
// repeat for the same key (the Recorder uses a random per-open prefix XOR
// the sequence number, so a sequence number reused after a crash gets a
// fresh nonce).
func SealPayload(dst []byte, k *EventKey, session SessionID, seq uint64, plaintext []byte, mode byte, nonce [NonceSize]byte) ([]byte, error) {
	return new(Sealer).Seal(dst, k, session, seq, plaintext, mode, nonce)
}

// A Sealer is SealPayload with its scratch space kept from one frame to
// the next: an AEAD moves the nonce and associated data it is handed to
// the heap, so the recorder, sealing every event, lends it a Sealer's
// instead. Not safe for concurrent use; the zero value is ready to use.
type Sealer struct {
	nonce [NonceSize]byte
	ad    [32]byte // C (mode 1) or session ‖ u64be(seq) (mode 2)
}

// Seal is SealPayload.
func (s *Sealer) Seal(dst []byte, k *EventKey, session SessionID, seq uint64, plaintext []byte, mode byte, nonce [NonceSize]byte) ([]byte, error) {
	s.nonce = nonce
	switch mode {
	case ModePlain:
		c := Commitment(k, session, seq, plaintext)
		dst = append(dst, ModePlain)
		dst = append(dst, c[:]...)
		return append(dst, plaintext...), nil
	case ModeEncrypted:
		s.ad = Commitment(k, session, seq, plaintext)
		gcm, err := newGCM(k.enc())
		if err != nil {
			return nil, err
		}
		dst = append(dst, ModeEncrypted)
		dst = append(dst, s.ad[:]...)
		dst = append(dst, nonce[:]...)
		// The commitment is the associated data: the ciphertext opens only
		// together with the commitment it was written with.
		return gcm.Seal(dst, s.nonce[:], plaintext, s.ad[:]), nil
	case ModeEncryptedV2:
		aead, err := chacha20poly1305.New(k.enc())
		if err != nil {
			return nil, err
		}
		kc := KeyCommitment(k)
		dst = append(dst, ModeEncryptedV2)
		dst = append(dst, kc[:]...)
		dst = append(dst, nonce[:]...)
		ad := positionAD(s.ad[:0], session, seq)
		return aead.Seal(dst, s.nonce[:], plaintext, ad), nil
	}
	return nil, fmt.Errorf("%w: mode %d", ErrPayloadFrame, mode)
}

// KeyCommitment returns KC = SHA-256("AFR-v2-key-commitment\x00" ‖ K_e),
// which a ModeEncryptedV2 frame stores: only the event key with this digest
// opens the frame, every byte of it, so the frame opens to one plaintext at
// most and a disclosed key cannot be altered (docs/SPEC.md).
func KeyCommitment(k *EventKey) Digest {
	var buf [len(domainKeyCommitment) + EventKeySize]byte
	copy(buf[:], domainKeyCommitment)
	copy(buf[len(domainKeyCommitment):], k[:])
	return sha256.Sum256(buf[:])
}

// positionAD appends to dst the associated data of a ModeEncryptedV2
// ciphertext: session ‖ u64be(seq), so the frame opens only at its own
// position.
func positionAD(dst []byte, session SessionID, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, session[:]...), seq)
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
	ErrPayloadFrame       = errors.New("format: malformed payload frame")
	ErrDecrypt            = errors.New("format: payload does not decrypt under the event key")
	ErrCommitmentMismatch = errors.New("format: payload does not match its commitment")
)

// PayloadFrameDigest is the envelope's payload field: SHA-256(domain ‖
// frame). It binds the stored bytes (ciphertext or plaintext) to the record,
// so a payload edited or swapped in storage is detected without any key.
func PayloadFrameDigest(frame []byte) Digest { return hashWithDomain(domainPayload, frame) }

// OpenPayload recovers and checks the plaintext of a stored payload frame
// of any mode for event seq of session. It fails with ErrPayloadFrame,
// ErrDecrypt or ErrCommitmentMismatch (wrapped) when the key or bytes are
// wrong: the commitment C in modes 0 and 1, the key commitment KC in mode 2.
func OpenPayload(k *EventKey, session SessionID, seq uint64, frame []byte) ([]byte, error) {
	if len(frame) < frameHeaderSize {
		return nil, fmt.Errorf("%w: %d bytes", ErrPayloadFrame, len(frame))
	}
	var plaintext []byte
	switch frame[0] {
	case ModePlain:
		plaintext = frame[frameHeaderSize:]
	case ModeEncrypted:
		if len(frame) < frameHeaderSize+NonceSize+16 {
			return nil, fmt.Errorf("%w: %d bytes", ErrPayloadFrame, len(frame))
		}
		gcm, err := newGCM(k.enc())
		if err != nil {
			return nil, err
		}
		plaintext, err = gcm.Open(nil, frame[frameHeaderSize:frameHeaderSize+NonceSize], frame[frameHeaderSize+NonceSize:], frame[1:frameHeaderSize])
		if err != nil {
			return nil, ErrDecrypt
		}
	case ModeEncryptedV2:
		if len(frame) < frameHeaderSize+NonceSize+chacha20poly1305.Overhead {
			return nil, fmt.Errorf("%w: %d bytes", ErrPayloadFrame, len(frame))
		}
		aead, err := chacha20poly1305.New(k.enc())
		if err != nil {
			return nil, err
		}
		plaintext, err = aead.Open(nil, frame[frameHeaderSize:frameHeaderSize+NonceSize], frame[frameHeaderSize+NonceSize:], positionAD(nil, session, seq))
		if err != nil {
			return nil, ErrDecrypt
		}
		// Decryption is a function of the key: with the key fixed by KC,
		// the plaintext is too.
		if kc := KeyCommitment(k); !hmac.Equal(kc[:], frame[1:frameHeaderSize]) {
			return nil, fmt.Errorf("%w: the frame commits to another key", ErrCommitmentMismatch)
		}
		return plaintext, nil
	default:
		return nil, fmt.Errorf("%w: mode %d", ErrPayloadFrame, frame[0])
	}
	if got := Commitment(k, session, seq, plaintext); !hmac.Equal(got[:], frame[1:frameHeaderSize]) {
		return nil, ErrCommitmentMismatch
	}
	return plaintext, nil
}
