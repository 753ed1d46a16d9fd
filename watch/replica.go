package watch

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
)

// Position is how far a replica of a log has come: the sealed epochs it
// holds (epochs 0 … Epochs−1) and the root of the last of them.
type Position struct {
	Epochs   uint64
	LastRoot format.Digest // zero when Epochs is 0
}

// Progress reads a replica's position. An implementation reads the
// replica where it is kept (a directory, an object store) and returns its
// position now, or an error when it cannot be read at all — never a
// position it did not read: the watcher takes a position that stays the
// same as a replica that stopped.
type Progress interface {
	Progress(ctx context.Context) (Position, error)
}

// ProgressFunc adapts a function to Progress.
type ProgressFunc func(ctx context.Context) (Position, error)

// Progress implements Progress.
func (f ProgressFunc) Progress(ctx context.Context) (Position, error) { return f(ctx) }

// Dir is the Progress of a replica kept as a log directory (a copy of the
// log's files, as the recorder writes them): the epoch headers it holds.
type Dir string

// Progress implements Progress: it reads the epoch headers of the copy.
// A directory holding none of a log's files yet is an empty copy; a copy
// whose epoch stream is damaged is read up to the damage.
func (d Dir) Progress(context.Context) (Position, error) {
	l, err := recorder.OpenLog(string(d))
	if errors.Is(err, recorder.ErrNotALog) {
		return Position{}, nil
	}
	if err != nil {
		return Position{}, fmt.Errorf("replica %s: %w", string(d), err)
	}
	var p Position
	err = l.Epochs(func(t uint64, raw []byte) error {
		if t != p.Epochs {
			return fmt.Errorf("epoch %d where epoch %d comes next", t, p.Epochs)
		}
		p.Epochs, p.LastRoot = t+1, format.EpochRoot(raw)
		return nil
	})
	if err != nil && p.Epochs == 0 {
		return Position{}, fmt.Errorf("replica %s: %w", string(d), err)
	}
	return p, nil
}
