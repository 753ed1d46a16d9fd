package recorder

import "time"

// AnchorWindow is the unanchored window of a log: what a compromise now
// could still rewrite without contradicting the chain. Package anchor
// computes it from its queue; the daemon and the CLI report it.
type AnchorWindow struct {
	// LastConfirmed is the last epoch with a confirmed anchor (nil: none).
	LastConfirmed *uint64 `json:"last_confirmed_epoch"`
	// ConfirmedAt is when it was confirmed.
	ConfirmedAt *time.Time `json:"confirmed_at,omitempty"`
	// Epochs sealed but not yet confirmed on chain.
	Epochs int `json:"unanchored_epochs"`
	// Events not covered by a confirmed anchor: in those epochs, plus the
	// open epoch's when known.
	Events uint64 `json:"unanchored_events"`
	// Age is how long the window has been open: since the last confirmed
	// anchor (or, before the first, since the first pending epoch was
	// sealed); zero when Events is zero.
	Age time.Duration `json:"age_ns"`
}
