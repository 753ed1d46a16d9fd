package verifier

import "testing"

// FuzzEpochOf checks the epoch of an event (docs/SPEC.md, "Verification",
// step 5) on logs built from the input: each byte is one frame of the
// epochs stream, a header of 1 + b%7 events (decodable when b&0x80 is
// clear) or, with b&0x40 set as well, garbage covering no events. An event
// gets the position of the header that covers it whenever that header
// decodes, or is the only undecodable header between decodable ones, and
// an unsealed event the position after the last decodable header.
func FuzzEpochOf(f *testing.F) {
	f.Add([]byte{3, 3, 3, 0xc0})
	f.Add([]byte{0x83, 3, 0x85, 0x81, 2})
	f.Add([]byte{0xc0, 0xc0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, frames []byte) {
		var spans []span
		var truth []uint64 // by seq: the position of the header that covers it
		var ambiguous []bool
		next := uint64(0)
		undecodableRun := 0
		for pos, b := range frames {
			garbage := b&0xc0 == 0xc0
			if garbage {
				continue // covers no events, but takes a position
			}
			n := uint64(1 + b%7)
			if b&0x80 == 0 {
				spans = append(spans, span{pos: uint64(pos), first: next, end: next + n})
				undecodableRun = 0
			} else {
				undecodableRun++
			}
			for range n {
				truth = append(truth, uint64(pos))
				ambiguous = append(ambiguous, undecodableRun > 1 || hasGarbageBefore(frames, pos))
			}
			next += n
		}
		for seq, want := range truth {
			if got := epochOf(spans, uint64(seq)); !ambiguous[seq] && got != want {
				t.Fatalf("frames %x: event %d in epoch %d, want %d", frames, seq, got, want)
			}
		}
		lastDecodable := -1
		for _, s := range spans {
			lastDecodable = int(s.pos)
		}
		if got := epochOf(spans, next); got != uint64(lastDecodable+1) {
			t.Fatalf("frames %x: unsealed event %d in epoch %d, want %d", frames, next, got, lastDecodable+1)
		}
	})
}

// hasGarbageBefore reports whether a garbage frame precedes pos: the
// positions after it no longer count the epochs a writer sealed.
func hasGarbageBefore(frames []byte, pos int) bool {
	for _, b := range frames[:pos] {
		if b&0xc0 == 0xc0 {
			return true
		}
	}
	return false
}
