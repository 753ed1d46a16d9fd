package watch

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/replica"
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

// LogReplica is the Progress of a replica read as a log, wherever it is
// kept: Open opens it afresh at each call (a replica advances between
// polls, so nothing of it is kept), and its epoch headers give the
// position. A replica holding none of a log's files yet (Open returns
// recorder.ErrNotALog) is an empty copy; one whose epoch stream is
// damaged is read up to the damage. Name names it in errors.
type LogReplica struct {
	Name string
	Open func(ctx context.Context) (*recorder.Log, error)
}

// Progress implements Progress: it reads the epoch headers of the copy.
func (r LogReplica) Progress(ctx context.Context) (Position, error) {
	l, err := r.Open(ctx)
	if errors.Is(err, recorder.ErrNotALog) {
		return Position{}, nil
	}
	if err != nil {
		return Position{}, fmt.Errorf("%s: %w", r.Name, err)
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
		return Position{}, fmt.Errorf("%s: %w", r.Name, err)
	}
	return p, nil
}

// Dir is the Progress of a replica kept as a log directory (a copy of the
// log's files, as the recorder writes them).
func Dir(dir string) LogReplica {
	return LogReplica{Name: dir, Open: func(context.Context) (*recorder.Log, error) { return recorder.OpenLog(dir) }}
}

// Bucket is the Progress of a replica in S3-compatible object storage, as
// afr replicate writes it (package replica): each call lists the replica
// under its prefix and reads its epoch headers.
func Bucket(s *replica.Store) LogReplica {
	return LogReplica{Name: s.URL(), Open: func(ctx context.Context) (*recorder.Log, error) {
		f, err := replica.Open(ctx, s)
		if err != nil {
			return nil, err
		}
		return recorder.OpenLogFS(f, s.URL())
	}}
}
