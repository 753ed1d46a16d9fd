package verifier

// SetSpillAt makes the verifier spill payload commitments to a file after
// every n records (kept in chunks of a quarter of that), until the
// returned function restores it.
func SetSpillAt(n int) (restore func()) {
	oldSpill, oldChunk := spillAt, commitChunk
	spillAt, commitChunk = n, max(n/4, 1)
	return func() { spillAt, commitChunk = oldSpill, oldChunk }
}
