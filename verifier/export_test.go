package verifier

// SetSpillAt makes the verifier spill payload commitments to a file after
// n records, until the returned function restores it.
func SetSpillAt(n int) (restore func()) {
	old := spillAt
	spillAt = n
	return func() { spillAt = old }
}
