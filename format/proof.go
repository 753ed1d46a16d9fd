package format

import "fmt"

// InclusionProof proves that a record is in a sealed epoch: with the epoch
// header (whose hash is the anchored root R_t) and the RFC 6962 audit path,
// anyone can check the record against an anchor. See docs/SPEC.md.
type InclusionProof struct {
	Record []byte   `json:"record"` // encoded envelope
	Header []byte   `json:"header"` // encoded epoch header
	Index  uint64   `json:"index"`  // leaf index within the epoch
	Path   []Digest `json:"path"`
}

// Verify checks the proof and returns the epoch root R_t it leads to. The
// caller compares that root with the anchored one.
func (p *InclusionProof) Verify() (Digest, error) {
	h, err := DecodeEpochHeader(p.Header)
	if err != nil {
		return Digest{}, err
	}
	e, err := DecodeEnvelope(p.Record)
	if err != nil {
		return Digest{}, err
	}
	if e.Seq != h.FirstSeq+p.Index || p.Index >= h.Count {
		return Digest{}, fmt.Errorf("format: proof: record %d is not leaf %d of epoch %d (seqs %d..%d)", e.Seq, p.Index, h.Epoch, h.FirstSeq, h.FirstSeq+h.Count-1)
	}
	if e.Session != h.Session || e.Recorder != h.Recorder {
		return Digest{}, fmt.Errorf("format: proof: record of another session")
	}
	if err := VerifyInclusion(RecordDigest(p.Record), p.Index, h.Count, p.Path, h.MerkleRoot); err != nil {
		return Digest{}, fmt.Errorf("format: proof: %w", err)
	}
	return EpochRoot(p.Header), nil
}
