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

// CopyKeysRacing copies the key directory keyDir to s twice, as two looks
// of a running Replicator do, with other run between its resuming and the
// first copy (another writer of the same place), and returns the errors.
func CopyKeysRacing(ctx context.Context, keyDir string, s *Store, other func()) (first, second error) {
	kc, err := resumeKeys(ctx, keyDir, s)
	if err != nil {
		return err, err
	}
	other()
	_, first = kc.copy(ctx)
	_, second = kc.copy(ctx)
	return first, second
}
