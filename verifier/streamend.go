package verifier

import (
	"errors"

	"github.com/agentflightrecorder/afr/format/segment"
)

// isStreamEnd reports a damaged stream end, which VerifyLog reports itself.
func isStreamEnd(err error) bool {
	var corrupt *segment.CorruptError
	var torn *segment.TornTailError
	return errors.As(err, &corrupt) || errors.As(err, &torn)
}
