package recorder

import (
	"fmt"
	"path/filepath"

	"github.com/agentflightrecorder/afr/format"

	"github.com/agentflightrecorder/afr/format/segment"
)

// Log reads a store without changing it: for the verifier, for disclosure,
// and for queries. Unlike Open it repairs nothing; a torn tail or a damaged
// frame is returned as an error from the iteration that meets it.
type Log struct {
	Dir      string
	Manifest Manifest
}

// OpenLog opens the store in dir read-only.
func OpenLog(dir string) (*Log, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	return &Log{Dir: dir, Manifest: *m}, nil
}

// Records calls visit with each record's position and encoded bytes, in order.
func (l *Log) Records(visit func(seq uint64, raw []byte) error) error {
	return l.stream("records", visit)
}

// Payloads calls visit with each stored payload frame, in order.
func (l *Log) Payloads(visit func(seq uint64, frame []byte) error) error {
	return l.stream("payloads", visit)
}

// Epochs calls visit with each encoded epoch header, in order.
func (l *Log) Epochs(visit func(epoch uint64, raw []byte) error) error {
	return l.stream("epochs", visit)
}

func (l *Log) stream(kind string, visit func(uint64, []byte) error) error {
	return segment.ReadAll(filepath.Join(l.Dir, kind), kind, func(f segment.Frame) error {
		return visit(f.Index, f.Data)
	})
}

// InclusionProof builds the proof for record seq, which must be in a sealed
// epoch. It reads the log once.
func (l *Log) InclusionProof(seq uint64) (*format.InclusionProof, error) {
	var hdr []byte
	var h *format.EpochHeader
	err := l.Epochs(func(_ uint64, raw []byte) error {
		if h != nil {
			return nil
		}
		eh, err := format.DecodeEpochHeader(raw)
		if err != nil {
			return err
		}
		if seq >= eh.FirstSeq && seq < eh.FirstSeq+eh.Count {
			h, hdr = eh, raw
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if h == nil {
		return nil, fmt.Errorf("recorder: event %d is not in a sealed epoch", seq)
	}
	digests := make([]format.Digest, 0, h.Count)
	var rec []byte
	err = l.Records(func(s uint64, raw []byte) error {
		if s >= h.FirstSeq && s < h.FirstSeq+h.Count {
			digests = append(digests, format.RecordDigest(raw))
			if s == seq {
				rec = raw
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if uint64(len(digests)) != h.Count {
		return nil, fmt.Errorf("recorder: epoch %d has %d records on disk, header says %d", h.Epoch, len(digests), h.Count)
	}
	path, err := format.MerklePath(digests, seq-h.FirstSeq)
	if err != nil {
		return nil, err
	}
	return &format.InclusionProof{Record: rec, Header: hdr, Index: seq - h.FirstSeq, Path: path}, nil
}
