package world

import (
	"context"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// Span is the events [First, First+Count) of one epoch.
type Span struct {
	Epoch, First, Count uint64
}

// Verification is a verifier report with the epoch layout of the honest log, so
// that a finding that names only an epoch (a Merkle mismatch, a replaced
// header) can be placed at the events it covers.
type Verification struct {
	*verifier.Report
	Spans []Span
}

// Spans reads the epoch layout of a log from its headers.
func Spans(src verifier.Source) ([]Span, error) {
	var out []Span
	err := src.Epochs(func(t uint64, raw []byte) error {
		h, err := format.DecodeEpochHeader(raw)
		if err != nil {
			return nil
		}
		out = append(out, Span{Epoch: t, First: h.FirstSeq, Count: h.Count})
		return nil
	})
	return out, err
}

// EpochOf returns the epoch covering seq in the layout, if any.
func (r *Verification) EpochOf(seq uint64) (uint64, bool) {
	for _, s := range r.Spans {
		if seq >= s.First && seq < s.First+s.Count {
			return s.Epoch, true
		}
	}
	return 0, false
}

// LogImage returns an in-memory copy of the World's log to tamper with.
// The log on disk is never touched.
func (w *World) LogImage() (*tamper.Image, error) {
	if err := w.openLog(context.Background()); err != nil {
		return nil, err
	}
	l, err := recorder.OpenLog(w.logDir)
	if err != nil {
		return nil, err
	}
	return tamper.Load(l)
}

// VerifyImage verifies a (tampered) copy of the log against anchors (nil:
// the World's anchors on chain), at payload level digest. Findings are
// placed with the epoch layout of the World's own log.
func (w *World) VerifyImage(ctx context.Context, img *tamper.Image, anchors verifier.AnchorSource) (*Verification, error) {
	if err := w.openLog(ctx); err != nil {
		return nil, err
	}
	if anchors == nil {
		anchors = w.Anchors()
	}
	rep, err := verifier.VerifyLog(ctx, img, anchors, verifier.Options{})
	if err != nil {
		return nil, err
	}
	return w.verification(rep)
}

// verification places rep's findings with the epoch layout of the World's
// log.
func (w *World) verification(rep *verifier.Report) (*Verification, error) {
	l, err := recorder.OpenLog(w.logDir)
	if err != nil {
		return nil, err
	}
	spans, err := Spans(l)
	if err != nil {
		return nil, err
	}
	return &Verification{Report: rep, Spans: spans}, nil
}

// Index is the verifier's forensic index (verifier.IndexLog).
type Index = verifier.Index
