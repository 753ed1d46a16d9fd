package verifier

import (
	"errors"
	"fmt"

	"github.com/agentflightrecorder/afr/format/segment"
)

// streamDamage returns the damage a stream's read reported — the errors
// joined in err, each a *segment.CorruptError, *segment.TornTailError or
// *segment.VersionError — or nil if err is nil or anything else.
func streamDamage(err error) []error {
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var corrupt *segment.CorruptError
		var torn *segment.TornTailError
		var version *segment.VersionError
		if !errors.As(e, &corrupt) && !errors.As(e, &torn) && !errors.As(e, &version) {
			return nil
		}
	}
	return errs
}

// isStreamEnd reports damage to a stream, which VerifyLog reports itself.
func isStreamEnd(err error) bool { return streamDamage(err) != nil }

// streamEnd turns the damage that a stream's read reported into findings,
// one per damage, located at the first frame it made unreadable. Any other
// error aborts the verification.
func (v *logVerifier) streamEnd(stream string, err error) error {
	damage := streamDamage(err)
	if err != nil && damage == nil {
		return fmt.Errorf("verifier: reading %s: %w", stream, err)
	}
	for _, d := range damage {
		var corrupt *segment.CorruptError
		var torn *segment.TornTailError
		var version *segment.VersionError
		var f Finding
		var at uint64 // the first frame the damage made unreadable
		switch {
		case errors.As(d, &corrupt):
			at, f.Kind, f.Detail = corrupt.Index, KindSegmentCorrupt, "damaged"
		case errors.As(d, &torn):
			at, f.Kind, f.Detail = torn.Index, KindTornTail, "ends in a torn frame"
		case errors.As(d, &version):
			at, f.Kind, f.Detail = version.Index, KindUnsupportedVersion, "not checked (a newer format version)"
			switch {
			case stream == "records":
				v.newerRecords = append(v.newerRecords, at)
			case stream == "epochs" && at >= uint64(len(v.headers)):
				v.newerEpochs = u64(at) // the stream ends in it: no header from here on was read
			}
		}
		f.Detail = fmt.Sprintf("%s stream %s from frame %d: %v", stream, f.Detail, at, d)
		if stream == "epochs" {
			f.Epoch = u64(at)
		} else {
			f.Seq = u64(at)
		}
		v.c.add(f)
	}
	return nil
}
