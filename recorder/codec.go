package recorder

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"reflect"
	"sync"
	"unicode/utf8"

	"github.com/fxamacker/cbor/v2"
)

// Size limits enforced on decode (and on encode, so nothing is written that
// could not be read back). See docs/SPEC.md, "Limits".
const (
	MaxRecordSize   = 4 << 10 // encoded envelope
	MaxPayloadSize  = 1 << 20 // encoded payload plaintext
	MaxHeaderSize   = 1 << 10 // encoded epoch header
	MaxStringLength = 1 << 10 // recorder id, tool name, group tag
	maxNesting      = 16
	maxItems        = 1 << 16 // elements of one array, pairs of one map
)

// Domain-separation prefixes for every hash AFR defines.
const (
	domainRecord  = "AFR-v1-record\x00"
	domainPayload = "AFR-v1-payload\x00"
	domainEpoch   = "AFR-v1-epoch\x00"
)

// ErrNonCanonical is wrapped by decode errors for input that is well-formed
// CBOR but not in AFR's deterministic encoding.
var ErrNonCanonical = errors.New("non-canonical CBOR")

// DecodeError reports why bytes could not be decoded as an AFR object.
type DecodeError struct {
	What string // "record", "payload", "epoch header"
	Err  error
}

func (e *DecodeError) Error() string { return fmt.Sprintf("recorder: decode %s: %v", e.What, e.Err) }
func (e *DecodeError) Unwrap() error { return e.Err }

var (
	encMode cbor.EncMode
	decMode cbor.DecMode
)

func init() {
	eo := cbor.CoreDetEncOptions() // RFC 8949 §4.2.1 core deterministic encoding
	eo.IndefLength = cbor.IndefLengthForbidden
	var err error
	if encMode, err = eo.EncMode(); err != nil {
		panic(err)
	}
	decMode, err = cbor.DecOptions{
		DupMapKey:         cbor.DupMapKeyEnforcedAPF,
		IndefLength:       cbor.IndefLengthForbidden,
		MaxNestedLevels:   maxNesting,
		MaxArrayElements:  maxItems,
		MaxMapPairs:       maxItems,
		UTF8:              cbor.UTF8RejectInvalid,
		DefaultMapType:    reflect.TypeOf(map[string]any(nil)),
		ExtraReturnErrors: cbor.ExtraDecErrorUnknownField,
	}.DecMode()
	if err != nil {
		panic(err)
	}
}

// Marshal encodes v in AFR's deterministic CBOR.
func Marshal(v any) ([]byte, error) { return encMode.Marshal(v) }

// decodeStrict decodes data into v and rejects anything that does not
// re-encode to exactly the same bytes: unsorted or duplicate keys, non-minimal
// integers and lengths, non-shortest floats, unknown fields, trailing bytes.
func decodeStrict(what string, data []byte, limit int, v any) error {
	if len(data) > limit {
		return &DecodeError{what, fmt.Errorf("%d bytes, limit %d", len(data), limit)}
	}
	if err := decMode.Unmarshal(data, v); err != nil {
		return &DecodeError{what, err}
	}
	again, err := encMode.Marshal(v)
	if err != nil {
		return &DecodeError{what, err}
	}
	if !bytes.Equal(again, data) {
		return &DecodeError{what, ErrNonCanonical}
	}
	return nil
}

// EncodeEnvelope returns the canonical encoding of e after checking limits.
func EncodeEnvelope(e *Envelope) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeEnvelopeTo(&buf, e); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func encodeEnvelopeTo(buf *bytes.Buffer, e *Envelope) error {
	if err := e.check(); err != nil {
		return fmt.Errorf("recorder: record: %w", err)
	}
	if !utf8.ValidString(e.Recorder) || !utf8.ValidString(e.Tool) || !utf8.ValidString(e.Group) {
		return errors.New("recorder: record: string field is not valid UTF-8")
	}
	buf.Write(appendEnvelope(buf.AvailableBuffer(), e))
	if buf.Len() > MaxRecordSize {
		return fmt.Errorf("recorder: record is %d bytes, limit %d", buf.Len(), MaxRecordSize)
	}
	return nil
}

// DecodeEnvelope decodes a record, rejecting non-canonical or oversized input
// and versions newer than FormatVersion.
func DecodeEnvelope(data []byte) (*Envelope, error) {
	var e Envelope
	if err := DecodeEnvelopeInto(data, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// DecodeEnvelopeInto is DecodeEnvelope writing into e, for callers that
// decode many records: text fields equal to those already in e (say, the
// previous record's) are reused without allocating.
func DecodeEnvelopeInto(data []byte, e *Envelope) error {
	if len(data) <= MaxRecordSize && parseEnvelopeInto(data, e) {
		if err := e.check(); err != nil {
			return &DecodeError{"record", err}
		}
		return nil
	}
	// Rejected (or oversized): the reflective decoder explains why.
	*e = Envelope{}
	if err := decodeStrict("record", data, MaxRecordSize, e); err != nil {
		return err
	}
	if err := e.check(); err != nil {
		return &DecodeError{"record", err}
	}
	return nil
}

func (e *Envelope) check() error {
	switch {
	case e.Version == 0:
		return errors.New("version 0")
	case e.Version > FormatVersion:
		return fmt.Errorf("%w: version %d, this build reads up to %d", ErrNewerVersion, e.Version, FormatVersion)
	case len(e.Recorder) > MaxStringLength || len(e.Tool) > MaxStringLength || len(e.Group) > MaxStringLength:
		return fmt.Errorf("string field over %d bytes", MaxStringLength)
	case !e.Kind.Valid():
		return fmt.Errorf("unknown event kind %d", e.Kind)
	}
	return nil
}

// EncodePayload returns the canonical encoding of p after validating it.
func EncodePayload(p *Payload) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodePayloadTo(&buf, p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func encodePayloadTo(buf *bytes.Buffer, p *Payload) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if err := encMode.(cbor.UserBufferEncMode).MarshalToBuffer(p, buf); err != nil {
		return fmt.Errorf("recorder: payload: %w", err)
	}
	if buf.Len() > MaxPayloadSize {
		return fmt.Errorf("recorder: payload is %d bytes, limit %d", buf.Len(), MaxPayloadSize)
	}
	return nil
}

// DecodePayload decodes payload plaintext, rejecting non-canonical input.
func DecodePayload(data []byte) (*Payload, error) {
	var p Payload
	if err := decodeStrict("payload", data, MaxPayloadSize, &p); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, &DecodeError{"payload", err}
	}
	return &p, nil
}

// RecordDigest is the digest that chains records and forms Merkle leaves:
// SHA-256(domainRecord ‖ encoded envelope).
func RecordDigest(encoded []byte) Digest {
	return hashWithDomain(domainRecord, encoded)
}

func hashWithDomain(domain string, b []byte) Digest {
	// Small inputs (records, leaves, nodes) hash from a stack buffer
	// without allocating.
	if len(domain)+len(b) <= 512 {
		var buf [512]byte
		n := copy(buf[:], domain)
		n += copy(buf[n:], b)
		return sha256.Sum256(buf[:n])
	}
	h := hasherPool.Get().(hash.Hash)
	h.Reset()
	h.Write([]byte(domain))
	h.Write(b)
	var d Digest
	h.Sum(d[:0])
	hasherPool.Put(h)
	return d
}

var hasherPool = sync.Pool{New: func() any { return sha256.New() }}
