package afrspec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentflightrecorder/afr/verifier"
)

// describeReport renders a report for failure messages: verdict, counts,
// and the findings (at most 12).
func describeReport(r *verifier.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "verdict %s (%d events, %d epochs, %d anchored epochs, %d payloads opened)", r.Verdict, r.Events, r.Epochs, r.AnchoredEpochs, r.PayloadsOpened)
	if len(r.Findings) == 0 {
		b.WriteString(", no findings")
		return b.String()
	}
	fmt.Fprintf(&b, ", %d finding(s):", len(r.Findings))
	for i, f := range r.Findings {
		if i == 12 {
			fmt.Fprintf(&b, "\n    … %d more", len(r.Findings)-i)
			break
		}
		fmt.Fprintf(&b, "\n    - %s", f)
	}
	if r.Dropped > 0 {
		fmt.Fprintf(&b, "\n    (%d more dropped by MaxFindings)", r.Dropped)
	}
	return b.String()
}

// kindSummary is "merkle_mismatch ×1, chain_break ×2".
func kindSummary(r *verifier.Report) string {
	n := map[verifier.FindingKind]int{}
	var order []verifier.FindingKind
	for _, f := range r.Findings {
		if n[f.Kind] == 0 {
			order = append(order, f.Kind)
		}
		n[f.Kind]++
	}
	if len(order) == 0 {
		return "no findings"
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%s ×%d", k, n[k])
	}
	return strings.Join(parts, ", ")
}

func isKnownKind(k verifier.FindingKind) bool {
	for _, x := range verifier.Kinds() {
		if x == k {
			return true
		}
	}
	return false
}

func kindList() string {
	kinds := verifier.Kinds()
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}
