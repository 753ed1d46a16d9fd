package format

import (
	"encoding/binary"
	"unicode/utf8"
)

// parseEnvelope decodes a record in a single pass without reflection or
// re-encoding. The canonical encoding of an Envelope is fully determined
// (keys 0–13 in order, keys 5 and 11–13 optional and never empty, every
// head in its shortest form), so
// any deviation is a rejection. It exists because the verifier decodes every
// record of a log; DecodeEnvelope falls back to the reflective decoder only
// to explain a rejection, and FuzzEnvelopeParsers checks that both accept
// exactly the same inputs with the same result.
func parseEnvelope(b []byte) (Envelope, bool) {
	var e Envelope
	ok := parseEnvelopeInto(b, &e)
	return e, ok
}

// parseEnvelopeInto is parseEnvelope writing into e. Text fields whose
// bytes equal the value already in e keep that string instead of
// allocating a new one (the recorder id is the same in every record).
func parseEnvelopeInto(b []byte, e *Envelope) bool {
	hint := *e
	*e = Envelope{}
	p := parser{b: b}
	n, ok := p.head(5)
	if !ok || n < 10 || n > 14 {
		return false
	}
	next := uint64(0) // the lowest key that may come next
	for range n {
		key, ok := p.head(0)
		if !ok || key < next || key > 13 {
			return false
		}
		for ; next < key; next++ {
			if !optionalKey(next) {
				return false // a required key is missing
			}
		}
		next++
		switch key {
		case 0:
			v, ok := p.head(0)
			if !ok || v == 0 || v > 255 {
				return false
			}
			e.Version = uint8(v)
		case 1:
			if e.Recorder, ok = p.text(hint.Recorder); !ok {
				return false
			}
		case 2:
			if !p.bytes(e.Session[:]) {
				return false
			}
		case 3:
			if e.Seq, ok = p.head(0); !ok {
				return false
			}
		case 4:
			if e.Clock, ok = p.head(0); !ok {
				return false
			}
		case 5:
			if e.Group, ok = p.text(hint.Group); !ok || e.Group == "" {
				return false // an empty group is omitted, never encoded
			}
		case 6:
			if e.Time, ok = p.int64(); !ok {
				return false
			}
		case 7:
			if e.Tool, ok = p.text(hint.Tool); !ok {
				return false
			}
		case 8:
			v, ok := p.head(0)
			if !ok || v > 255 {
				return false
			}
			e.Kind = Kind(v)
		case 9:
			if !p.bytes(e.Payload[:]) {
				return false
			}
		case 10:
			if !p.bytes(e.Prev[:]) {
				return false
			}
		case 11:
			if e.EventTime, ok = p.int64(); !ok || e.EventTime == 0 {
				return false
			}
		case 12:
			if e.Run, ok = p.text(hint.Run); !ok || e.Run == "" {
				return false
			}
		case 13:
			if e.ID, ok = p.text(""); !ok || e.ID == "" {
				return false
			}
		}
	}
	return next > 10 && p.i == len(b)
}

// optionalKey reports whether record key k may be absent.
func optionalKey(k uint64) bool { return k == 5 || k >= 11 }

type parser struct {
	b []byte
	i int
}

// head reads a data item head of the given major type in its shortest form
// and returns its argument. Indefinite lengths and non-minimal arguments
// fail.
func (p *parser) head(major byte) (uint64, bool) {
	if p.i >= len(p.b) || p.b[p.i]>>5 != major {
		return 0, false
	}
	ai := p.b[p.i] & 0x1f
	p.i++
	switch {
	case ai < 24:
		return uint64(ai), true
	case ai == 24:
		if p.i+1 > len(p.b) || p.b[p.i] < 24 {
			return 0, false
		}
		p.i++
		return uint64(p.b[p.i-1]), true
	case ai == 25:
		if p.i+2 > len(p.b) {
			return 0, false
		}
		v := uint64(binary.BigEndian.Uint16(p.b[p.i:]))
		p.i += 2
		return v, v > 0xff
	case ai == 26:
		if p.i+4 > len(p.b) {
			return 0, false
		}
		v := uint64(binary.BigEndian.Uint32(p.b[p.i:]))
		p.i += 4
		return v, v > 0xffff
	case ai == 27:
		if p.i+8 > len(p.b) {
			return 0, false
		}
		v := binary.BigEndian.Uint64(p.b[p.i:])
		p.i += 8
		return v, v > 0xffffffff
	}
	return 0, false
}

// text reads a text string; if its bytes equal reuse, reuse is returned
// without allocating.
func (p *parser) text(reuse string) (string, bool) {
	n, ok := p.head(3)
	if !ok || n > uint64(len(p.b)-p.i) {
		return "", false
	}
	s := p.b[p.i : p.i+int(n)]
	p.i += int(n)
	if !utf8.Valid(s) {
		return "", false
	}
	if string(s) == reuse {
		return reuse, true
	}
	return string(s), true
}

func (p *parser) bytes(dst []byte) bool {
	n, ok := p.head(2)
	if !ok || n != uint64(len(dst)) || n > uint64(len(p.b)-p.i) {
		return false
	}
	copy(dst, p.b[p.i:])
	p.i += int(n)
	return true
}

func (p *parser) int64() (int64, bool) {
	if p.i >= len(p.b) {
		return 0, false
	}
	switch p.b[p.i] >> 5 {
	case 0:
		v, ok := p.head(0)
		return int64(v), ok && v <= 1<<63-1
	case 1:
		v, ok := p.head(1)
		return -1 - int64(v), ok && v <= 1<<63-1
	}
	return 0, false
}

// appendEnvelope appends the canonical encoding of e to dst: the inverse of
// parseEnvelope, for the recorder's hot path. FuzzEnvelopeEncoders checks
// it against the reflective encoder byte for byte.
func appendEnvelope(dst []byte, e *Envelope) []byte {
	n := byte(10)
	for _, set := range [...]bool{e.Group != "", e.EventTime != 0, e.Run != "", e.ID != ""} {
		if set {
			n++
		}
	}
	dst = append(dst, 0xa0|n)
	dst = append(dst, 0x00)
	dst = appendHead(dst, 0, uint64(e.Version))
	dst = append(dst, 0x01)
	dst = appendText(dst, e.Recorder)
	dst = append(dst, 0x02)
	dst = appendHead(dst, 2, 16)
	dst = append(dst, e.Session[:]...)
	dst = append(dst, 0x03)
	dst = appendHead(dst, 0, e.Seq)
	dst = append(dst, 0x04)
	dst = appendHead(dst, 0, e.Clock)
	if e.Group != "" {
		dst = append(dst, 0x05)
		dst = appendText(dst, e.Group)
	}
	dst = appendInt(append(dst, 0x06), e.Time)
	dst = append(dst, 0x07)
	dst = appendText(dst, e.Tool)
	dst = append(dst, 0x08)
	dst = appendHead(dst, 0, uint64(e.Kind))
	dst = append(dst, 0x09)
	dst = appendHead(dst, 2, 32)
	dst = append(dst, e.Payload[:]...)
	dst = append(dst, 0x0a)
	dst = appendHead(dst, 2, 32)
	dst = append(dst, e.Prev[:]...)
	if e.EventTime != 0 {
		dst = appendInt(append(dst, 0x0b), e.EventTime)
	}
	if e.Run != "" {
		dst = appendText(append(dst, 0x0c), e.Run)
	}
	if e.ID != "" {
		dst = appendText(append(dst, 0x0d), e.ID)
	}
	return dst
}

// appendHead appends a data item head in its shortest form.
func appendHead(dst []byte, major byte, v uint64) []byte {
	m := major << 5
	switch {
	case v < 24:
		return append(dst, m|byte(v))
	case v <= 0xff:
		return append(dst, m|24, byte(v))
	case v <= 0xffff:
		return binary.BigEndian.AppendUint16(append(dst, m|25), uint16(v))
	case v <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(dst, m|26), uint32(v))
	}
	return binary.BigEndian.AppendUint64(append(dst, m|27), v)
}

func appendText(dst []byte, s string) []byte {
	return append(appendHead(dst, 3, uint64(len(s))), s...)
}
