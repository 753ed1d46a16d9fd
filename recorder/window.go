package recorder

import (
	"fmt"
	"time"
)

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
	// Oldest is how long ago the oldest sealed epoch without a confirmed
	// anchor was sealed (zero when Epochs is zero): the backlog's age.
	Oldest time.Duration `json:"oldest_unanchored_age_ns"`
}

// WindowLimit bounds the unanchored window (zero fields: no bound).
type WindowLimit struct {
	// Events bounds AnchorWindow.Events.
	Events uint64
	// Age bounds AnchorWindow.Oldest, the age of the oldest sealed epoch
	// without a confirmed anchor.
	Age time.Duration
}

// IsZero reports whether l bounds nothing.
func (l WindowLimit) IsZero() bool { return l.Events == 0 && l.Age == 0 }

// WindowExceededError reports an unanchored window past its limit.
type WindowExceededError struct {
	Window AnchorWindow
	Limit  WindowLimit
}

func (e *WindowExceededError) Error() string {
	if e.Limit.Events > 0 && e.Window.Events >= e.Limit.Events {
		return fmt.Sprintf("the unanchored window holds %d events, the limit is %d (%d sealed epochs wait for their anchors)", e.Window.Events, e.Limit.Events, e.Window.Epochs)
	}
	return fmt.Sprintf("the oldest epoch without a confirmed anchor was sealed %s ago, the limit is %s (%d sealed epochs wait for their anchors)",
		e.Window.Oldest.Round(time.Millisecond), e.Limit.Age, e.Window.Epochs)
}

// Check returns a *WindowExceededError when w has reached a bound of l:
// Events at or past l.Events, or Oldest at or past l.Age.
func (l WindowLimit) Check(w AnchorWindow) error {
	if (l.Events > 0 && w.Events >= l.Events) || (l.Age > 0 && w.Oldest >= l.Age) {
		return &WindowExceededError{Window: w, Limit: l}
	}
	return nil
}
