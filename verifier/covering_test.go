package verifier

import "testing"

// FuzzLastCovering: lastCovering finds, for every seq, what searching
// every span finds (the last one covering it), on spans of any order and
// overlap built from the input: each 3 bytes are a span (first, length),
// each byte after a 0xff separator a seq.
func FuzzLastCovering(f *testing.F) {
	f.Add([]byte{0, 4, 0, 4, 4, 0, 0, 8, 0, 0xff, 0, 3, 4, 7, 9})
	f.Add([]byte{5, 0, 0, 5, 1, 0, 0xff, 5, 5, 4})
	f.Add([]byte{0xfe, 0xff, 0xff, 0xff, 0xfe, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		var spans []span
		var seqs []uint64
		for i := 0; i < len(data); {
			if data[i] == 0xff {
				for _, b := range data[i+1:] {
					seqs = append(seqs, uint64(b))
				}
				break
			}
			if i+3 > len(data) {
				break
			}
			first := uint64(data[i])
			end := first + uint64(data[i+1])&0x0f
			if data[i+2]&1 == 1 {
				end = ^uint64(0) // a count that overflows: covers to the end
			}
			spans = append(spans, span{pos: uint64(len(spans)), first: first, end: end})
			i += 3
		}
		got := lastCovering(spans, seqs)
		for k, s := range seqs {
			want := -1
			for i, sp := range spans {
				if sp.first <= s && s < sp.end {
					want = i
				}
			}
			if got[k] != want {
				t.Fatalf("seq %d in %v: span %d, want %d", s, spans, got[k], want)
			}
		}
	})
}
