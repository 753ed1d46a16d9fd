package replica

import "context"

// SetMaxRead sets how much one look reads of each stream, for a test; the
// function it returns restores it.
func SetMaxRead(n int64) (restore func()) {
	old := maxRead
	maxRead = n
	return func() { maxRead = old }
}

// OnePass copies what one look at the log in dir reads, as one pass of a
// running Replicator does.
func OnePass(ctx context.Context, dir string, s *Store, opts Options) (Status, error) {
	r, err := resume(ctx, dir, s, opts)
	if err != nil {
		return Status{}, err
	}
	err = r.pass(ctx)
	return r.Status(), err
}
