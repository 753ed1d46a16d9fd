package world

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/agentflightrecorder/afr/verifier"
)

// Score is the precision and recall of a retrieved set of events against
// the ground truth, as in the paper's RQ4.
type Score struct {
	Query               string
	Retrieved, Relevant int // |retrieved|, |retrieved ∩ truth|
	Truth               int
	Precision, Recall   float64
}

func (s Score) String() string {
	return fmt.Sprintf("%-40s retrieved %4d, relevant %2d of %2d: precision %.3f, recall %.3f", s.Query, s.Retrieved, s.Relevant, s.Truth, s.Precision, s.Recall)
}

// ScoreSeqs scores retrieved event sequence numbers against truth.
// Precision of an empty retrieval is 0.
func ScoreSeqs(query string, retrieved, truth []uint64) Score {
	t := map[uint64]bool{}
	for _, s := range truth {
		t[s] = true
	}
	seen := map[uint64]bool{}
	s := Score{Query: query, Truth: len(t)}
	for _, r := range retrieved {
		if seen[r] {
			continue
		}
		seen[r] = true
		s.Retrieved++
		if t[r] {
			s.Relevant++
		}
	}
	if s.Retrieved > 0 {
		s.Precision = float64(s.Relevant) / float64(s.Retrieved)
	}
	if s.Truth > 0 {
		s.Recall = float64(s.Relevant) / float64(s.Truth)
	}
	return s
}

// WritePlainJSON writes every indexed event as one JSON line
// ({"seq", "envelope", "payload"}), the paper's plain-JSON baseline log: what
// a conventional logger would have kept of the same events.
func WritePlainJSON(path string, ix *verifier.Index) error {
	var b bytes.Buffer
	for seq := uint64(0); seq < uint64(ix.Len()); seq++ {
		ev, ok := ix.Event(seq)
		if !ok {
			continue
		}
		line, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// Grep returns the sequence numbers of the lines of a plain-JSON log that
// contain any of the terms, case-insensitively (grep -i -e t1 -e t2 …).
func Grep(path string, terms ...string) ([]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var out []uint64
	for sc.Scan() {
		line := strings.ToLower(sc.Text())
		for _, t := range terms {
			if strings.Contains(line, strings.ToLower(t)) {
				var ev struct {
					Seq uint64 `json:"seq"`
				}
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
					return nil, err
				}
				out = append(out, ev.Seq)
				break
			}
		}
	}
	return out, sc.Err()
}

// ScoreTable renders scores, one per line.
func ScoreTable(scores []Score) string {
	var b strings.Builder
	for _, s := range scores {
		b.WriteString("    " + s.String() + "\n")
	}
	return b.String()
}

// SortedSeqs returns seqs sorted and deduplicated.
func SortedSeqs(seqs []uint64) []uint64 {
	m := map[uint64]bool{}
	for _, s := range seqs {
		m[s] = true
	}
	out := make([]uint64, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
