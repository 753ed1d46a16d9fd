package format

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Mark is the durable mark of a log (docs/SPEC.md, "Durable mark"): how
// many frames of its streams a writer had made durable (fsynced) before it
// acknowledged any event past them. Damage at or past the mark, in the last
// segment file of a stream, is what a machine crash leaves of writes that
// were never acknowledged; damage below it is not.
type Mark struct {
	Generation uint64 // increases with every write of the mark; picks the newer slot
	Events     uint64 // frames of the records and of the payloads stream
	Epochs     uint64 // frames of the epochs stream
}

// The DURABLE file holds two slots, MarkSlotSize bytes each, at offsets 0
// and MarkSlotStride: a write replaces one slot in place, and a write torn
// by a crash leaves the other intact.
const (
	MarkSlotSize   = 36
	MarkSlotStride = 4096
	MarkFileSize   = MarkSlotStride + MarkSlotSize
	// MarkVersion is the slot format version written and read by this build.
	MarkVersion = 1
)

var markMagic = [6]byte{'A', 'F', 'R', 'D', 'U', 'R'}

var markCRC = crc32.MakeTable(crc32.Castagnoli)

// ErrNoMark is returned by DecodeMark for a DURABLE file without a valid
// slot. A reader then applies the rules of a log without a mark.
var ErrNoMark = errors.New("format: no valid slot in the durable mark")

// EncodeMarkSlot returns the slot that holds m; it belongs at offset
// MarkSlotStride × (m.Generation mod 2).
func EncodeMarkSlot(m Mark) [MarkSlotSize]byte {
	var s [MarkSlotSize]byte
	copy(s[:6], markMagic[:])
	s[6] = MarkVersion
	binary.BigEndian.PutUint64(s[8:], m.Generation)
	binary.BigEndian.PutUint64(s[16:], m.Events)
	binary.BigEndian.PutUint64(s[24:], m.Epochs)
	binary.BigEndian.PutUint32(s[32:], crc32.Checksum(s[:32], markCRC))
	return s
}

// EncodeMarkFile returns a whole DURABLE file holding m in both slots, at
// generations m.Generation and m.Generation+1: the file a writer creates.
func EncodeMarkFile(m Mark) []byte {
	b := make([]byte, MarkFileSize)
	for i := range uint64(2) {
		g := m
		g.Generation = m.Generation + i
		s := EncodeMarkSlot(g)
		copy(b[MarkSlotStride*(g.Generation%2):], s[:])
	}
	return b
}

// DecodeMark reads a DURABLE file: of its two slots, the valid one with the
// larger generation. A slot is valid when it is complete, its magic and
// version are right, its reserved byte is zero, its checksum matches and
// its generation's parity is its position. Without a valid slot it returns
// an error wrapping ErrNoMark.
func DecodeMark(b []byte) (Mark, error) {
	var best Mark
	found := false
	var why []error
	for i := range 2 {
		m, err := decodeSlot(b, i)
		if err != nil {
			why = append(why, fmt.Errorf("slot %d: %w", i, err))
			continue
		}
		if !found || m.Generation > best.Generation {
			best, found = m, true
		}
	}
	if !found {
		return Mark{}, errors.Join(append([]error{ErrNoMark}, why...)...)
	}
	return best, nil
}

func decodeSlot(b []byte, i int) (Mark, error) {
	off := MarkSlotStride * i
	if len(b) < off+MarkSlotSize {
		return Mark{}, errors.New("cut short")
	}
	s := b[off : off+MarkSlotSize]
	switch {
	case [6]byte(s[:6]) != markMagic:
		return Mark{}, errors.New("bad magic")
	case s[6] != MarkVersion:
		return Mark{}, fmt.Errorf("version %d, this build reads %d", s[6], MarkVersion)
	case s[7] != 0:
		return Mark{}, errors.New("reserved byte not zero")
	case crc32.Checksum(s[:32], markCRC) != binary.BigEndian.Uint32(s[32:]):
		return Mark{}, errors.New("checksum mismatch")
	}
	m := Mark{Generation: binary.BigEndian.Uint64(s[8:]), Events: binary.BigEndian.Uint64(s[16:]), Epochs: binary.BigEndian.Uint64(s[24:])}
	if m.Generation%2 != uint64(i) {
		return Mark{}, fmt.Errorf("generation %d in slot %d", m.Generation, i)
	}
	return m, nil
}
