package format

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
	MaxIDLength     = 256     // run tag, event id, each parent id
	maxNesting      = 16
	maxItems        = 1 << 16 // elements of one array, pairs of one map
)

// Domain-separation prefixes for every hash AFR defines.
const (
	domainRecord        = "AFR-v1-record\x00"
	domainPayload       = "AFR-v1-payload\x00"
	domainEpoch         = "AFR-v1-epoch\x00"
	domainKeyCommitment = "AFR-v2-key-commitment\x00"
)

// ErrNewerVersion is wrapped by errors for data written by a newer format
// version than this build reads (records, epoch headers, segment files,
// manifests).
var ErrNewerVersion = errors.New("written by a newer format version")

// ErrLimit is wrapped by the errors of encoders for an object over a limit
// of docs/SPEC.md, "Limits": nothing is written that a reader would refuse.
var ErrLimit = errors.New("over a limit of docs/SPEC.md, \"Limits\"")

// ErrNonCanonical is wrapped by decode errors for input that is well-formed
// CBOR but not in AFR's deterministic encoding.
var ErrNonCanonical = errors.New("non-canonical CBOR")

// DecodeError reports why bytes could not be decoded as an AFR object.
type DecodeError struct {
	What string // "record", "payload", "epoch header"
	Err  error
}

func (e *DecodeError) Error() string { return fmt.Sprintf("format: decode %s: %v", e.What, e.Err) }
func (e *DecodeError) Unwrap() error { return e.Err }

// Limits bound what a Decoder accepts from untrusted input.
type Limits struct {
	Size    int // encoded bytes
	Nesting int // levels of nested arrays and maps
	Items   int // elements of one array, pairs of one map
}

// Decoder decodes AFR's deterministic CBOR strictly and within limits.
// Every decoder of untrusted CBOR in AFR is one (records, payloads, epoch
// headers, disclosure bundles, PDRs and delegations).
type Decoder struct {
	dm    cbor.DecMode
	limit int
}

// NewDecoder returns a decoder enforcing l. It rejects duplicate map keys,
// indefinite lengths, invalid UTF-8 and unknown struct fields, and decodes
// maps into map[string]any.
func NewDecoder(l Limits) *Decoder {
	dm, err := cbor.DecOptions{
		DupMapKey:         cbor.DupMapKeyEnforcedAPF,
		IndefLength:       cbor.IndefLengthForbidden,
		MaxNestedLevels:   l.Nesting,
		MaxArrayElements:  l.Items,
		MaxMapPairs:       l.Items,
		UTF8:              cbor.UTF8RejectInvalid,
		DefaultMapType:    reflect.TypeOf(map[string]any(nil)),
		ExtraReturnErrors: cbor.ExtraDecErrorUnknownField,
	}.DecMode()
	if err != nil {
		panic(err) // the limits are constants of their callers
	}
	return &Decoder{dm: dm, limit: l.Size}
}

// Unmarshal decodes data into v within the limits, without the canonical
// check: for UnmarshalCBOR methods called by a Decode that makes it.
func (d *Decoder) Unmarshal(data []byte, v any) error { return d.dm.Unmarshal(data, v) }

// Decode decodes data into v and rejects anything that does not re-encode
// to exactly the same bytes (unsorted or duplicate keys, non-minimal
// integers and lengths, non-shortest floats, unknown fields, trailing
// bytes): such input fails with an error wrapping ErrNonCanonical.
func (d *Decoder) Decode(data []byte, v any) error {
	if len(data) > d.limit {
		return fmt.Errorf("%d bytes, limit %d", len(data), d.limit)
	}
	if err := d.dm.Unmarshal(data, v); err != nil {
		return err
	}
	again, err := encMode.Marshal(v)
	if err != nil {
		return err
	}
	if !bytes.Equal(again, data) {
		return ErrNonCanonical
	}
	return nil
}

// encMode is RFC 8949 §4.2.1 core deterministic encoding, without
// indefinite lengths: the one encoding every AFR hash is over.
var encMode = func() cbor.EncMode {
	eo := cbor.CoreDetEncOptions()
	eo.IndefLength = cbor.IndefLengthForbidden
	em, err := eo.EncMode()
	if err != nil {
		panic(err)
	}
	return em
}()

// Decoders of the log's objects, one per size limit (see docs/SPEC.md,
// "Limits").
var (
	recordDecoder  = NewDecoder(Limits{Size: MaxRecordSize, Nesting: maxNesting, Items: maxItems})
	payloadDecoder = NewDecoder(Limits{Size: MaxPayloadSize, Nesting: maxNesting, Items: maxItems})
	headerDecoder  = NewDecoder(Limits{Size: MaxHeaderSize, Nesting: maxNesting, Items: maxItems})
)

// Marshal encodes v in AFR's deterministic CBOR.
func Marshal(v any) ([]byte, error) { return encMode.Marshal(v) }

// decodeStrict is d.Decode with failures reported as a DecodeError of what.
func decodeStrict(what string, d *Decoder, data []byte, v any) error {
	if err := d.Decode(data, v); err != nil {
		return &DecodeError{what, err}
	}
	return nil
}

// EncodeEnvelope returns the canonical encoding of e after checking limits.
func EncodeEnvelope(e *Envelope) ([]byte, error) {
	var buf bytes.Buffer
	if err := EncodeEnvelopeTo(&buf, e); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodeEnvelopeTo appends the canonical encoding of e to buf after checking
// limits; on error buf may hold a partial encoding.
func EncodeEnvelopeTo(buf *bytes.Buffer, e *Envelope) error {
	if err := e.check(); err != nil {
		return fmt.Errorf("format: record: %w", err)
	}
	if !utf8.ValidString(e.Recorder) || !utf8.ValidString(e.Tool) || !utf8.ValidString(e.Group) || !utf8.ValidString(e.Run) || !utf8.ValidString(e.ID) {
		return errors.New("format: record: string field is not valid UTF-8")
	}
	start := buf.Len()
	buf.Write(appendEnvelope(buf.AvailableBuffer(), e))
	if n := buf.Len() - start; n > MaxRecordSize {
		return fmt.Errorf("format: record is %d bytes, limit %d: %w", n, MaxRecordSize, ErrLimit)
	}
	return nil
}

// DecodeEnvelope decodes a record, rejecting non-canonical or oversized input
// and versions newer than Version.
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
	if err := decodeStrict("record", recordDecoder, data, e); err != nil {
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
	case e.Version > Version:
		return fmt.Errorf("%w: version %d, this build reads up to %d", ErrNewerVersion, e.Version, Version)
	case len(e.Recorder) > MaxStringLength || len(e.Tool) > MaxStringLength || len(e.Group) > MaxStringLength:
		return fmt.Errorf("string field over %d bytes", MaxStringLength)
	case !e.Kind.Valid():
		return fmt.Errorf("unknown event kind %d", e.Kind)
	case len(e.Run) > MaxIDLength || len(e.ID) > MaxIDLength:
		return fmt.Errorf("run or id over %d bytes", MaxIDLength)
	case e.Version >= versionFields:
		return nil
	case e.Kind.Since() > e.Version:
		return fmt.Errorf("unknown event kind %d in a record of version %d (%s is of version %d)", e.Kind, e.Version, e.Kind, e.Kind.Since())
	}
	for _, f := range []struct {
		key  int
		name string
		set  bool
	}{{11, "event_time", e.EventTime != 0}, {12, "run", e.Run != ""}, {13, "id", e.ID != ""}} {
		if f.set {
			return fmt.Errorf("unknown field %d in a record of version %d (%s is of version %d)", f.key, e.Version, f.name, versionFields)
		}
	}
	return nil
}

// EncodePayload returns the canonical encoding of p after validating it.
func EncodePayload(p *Payload) ([]byte, error) {
	var buf bytes.Buffer
	if err := EncodePayloadTo(&buf, p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodePayloadTo appends the canonical encoding of p to buf after
// validating it; on error buf may hold a partial encoding.
func EncodePayloadTo(buf *bytes.Buffer, p *Payload) error {
	// Validate, with the rules of free-form values checked as appendPayload
	// encodes them.
	if err := p.validate(false); err != nil {
		return invalid(err)
	}
	start := buf.Len()
	enc, err := appendPayload(buf.AvailableBuffer(), p)
	if err != nil {
		return invalid(err)
	}
	buf.Write(enc)
	if n := buf.Len() - start; n > MaxPayloadSize {
		return fmt.Errorf("format: payload is %d bytes, limit %d: %w", n, MaxPayloadSize, ErrLimit)
	}
	return nil
}

// DecodePayload decodes payload plaintext, rejecting non-canonical input.
func DecodePayload(data []byte) (*Payload, error) {
	var p Payload
	if err := decodeStrict("payload", payloadDecoder, data, &p); err != nil {
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
