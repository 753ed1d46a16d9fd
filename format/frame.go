package format

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"errors"
	"fmt"
)

// Payload frame modes (first byte of a stored payload frame).
const (
	ModePlain     byte = 0 // mode ‖ C ‖ plaintext
	ModeEncrypted byte = 1 // mode ‖ C ‖ nonce ‖ AES-256-GCM(plaintext)
)

// frameHeaderSize is the mode byte and the 32-byte commitment C that start
// every payload frame.
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
	ErrPayloadFrame       = errors.New("format: malformed payload frame")
	ErrDecrypt            = errors.New("format: payload does not decrypt under the event key")
	ErrCommitmentMismatch = errors.New("format: payload does not match its commitment")
)

// PayloadFrameDigest is the envelope's payload field: SHA-256(domain ‖
// frame). It binds the stored bytes (ciphertext or plaintext) to the record,
// so a payload edited or swapped in storage is detected without any key.
func PayloadFrameDigest(frame []byte) Digest { return hashWithDomain(domainPayload, frame) }

// OpenPayload recovers and checks the plaintext of a stored payload frame
// for event seq of session. It fails with ErrPayloadFrame, ErrDecrypt or
// ErrCommitmentMismatch (wrapped) when the key or bytes are wrong.
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
	default:
		return nil, fmt.Errorf("%w: mode %d", ErrPayloadFrame, frame[0])
	}
	if got := Commitment(k, session, seq, plaintext); !hmac.Equal(got[:], frame[1:frameHeaderSize]) {
		return nil, ErrCommitmentMismatch
	}
	return plaintext, nil
}
