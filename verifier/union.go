package verifier

import (
	"context"

	"github.com/agentflightrecorder/afr/format"
)

// AnchorSources is the union of anchor sources: the verifier checks their
// anchors against one another (two roots for one epoch are
// anchor_conflict). It is an AnchorChecker so that the findings of a
// member that is one (batch anchors) are kept.
type AnchorSources []AnchorSource

// Anchors implements AnchorSource: the anchors of all members.
func (s AnchorSources) Anchors(ctx context.Context) ([]format.Anchor, error) {
	ca, err := s.CheckAnchors(ctx)
	if err != nil {
		return nil, err
	}
	return ca.Anchors, nil
}

// CheckAnchors implements AnchorChecker: the anchors and findings of all
// members, partial if any member is.
func (s AnchorSources) CheckAnchors(ctx context.Context) (*CheckedAnchors, error) {
	out := &CheckedAnchors{}
	for _, src := range s {
		if ac, ok := src.(AnchorChecker); ok {
			ca, err := ac.CheckAnchors(ctx)
			if err != nil {
				return nil, err
			}
			out.Anchors = append(out.Anchors, ca.Anchors...)
			out.Findings = append(out.Findings, ca.Findings...)
			out.Partial = out.Partial || ca.Partial
			continue
		}
		as, err := src.Anchors(ctx)
		if err != nil {
			return nil, err
		}
		out.Anchors = append(out.Anchors, as...)
	}
	return out, nil
}
