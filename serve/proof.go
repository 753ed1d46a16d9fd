package serve

import (
	"errors"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
	"github.com/agentflightrecorder/afr/recorder"
)

// Proof is the inclusion proof of one event with the epoch root it proves
// against: the body of GET /v1/proof/{seq} and what afr proof --json prints.
type Proof struct {
	*format.InclusionProof
	Root format.Digest `json:"root"`
}

// Prove builds and checks the inclusion proof of event seq of the log l,
// which must be in a sealed epoch. The log may have a writer: a frame it is
// writing at that moment reads as a torn tail, and the log is read again.
func Prove(l *recorder.Log, seq uint64) (Proof, error) {
	var torn *segment.TornTailError
	for try := 0; ; try++ {
		p, err := l.InclusionProof(seq)
		if errors.As(err, &torn) && try < 5 {
			time.Sleep(time.Duration(try+1) * time.Millisecond)
			continue
		}
		if err != nil {
			return Proof{}, err
		}
		root, err := p.Verify()
		if err != nil {
			return Proof{}, err
		}
		return Proof{p, root}, nil
	}
}

// sealedOnDisk is the number of events in the epochs whose headers the log
// on disk holds; a header the writer is writing is not counted.
func sealedOnDisk(l *recorder.Log) (uint64, error) {
	var n uint64
	err := l.Epochs(func(_ uint64, raw []byte) error {
		h, err := format.DecodeEpochHeader(raw)
		if err != nil {
			return err
		}
		n = h.FirstSeq + h.Count
		return nil
	})
	var torn *segment.TornTailError
	if errors.As(err, &torn) {
		err = nil
	}
	return n, err
}
