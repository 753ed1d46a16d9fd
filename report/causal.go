package report

import (
	"fmt"
	"sort"

	"github.com/agentflightrecorder/afr/verifier"
)

// causalView is the causal graph of one event, laid out in layers by
// depth: the event on the right, each parent one layer left of its
// furthest child, origins on the left.
type causalView struct {
	Seq           uint64
	Width, Height int
	Nodes, Gaps   []nodeView // Gaps: parents the log or bundle does not hold
	Edges         []edgeView
}

type nodeView struct {
	Seq        uint64
	X, Y       int
	Kind, Tool string
	Target     bool
}

type edgeView struct {
	From, To uint64
	Via, D   string
}

// Node geometry, in SVG user units.
const (
	nodeW, nodeH = 168, 40
	colGap       = 56
	rowGap       = 14
	margin       = 8
)

func causal(ix *verifier.Index, seq uint64) (*causalView, error) {
	events, all, err := ix.CausalChain(seq)
	if err != nil {
		return nil, fmt.Errorf("report: causal graph: %w", err)
	}
	// A parent id that names no event has no node to draw: the graph
	// shows the links that resolve (afr query --causal lists the others).
	var links []verifier.Link
	for _, l := range all {
		if !l.Unresolved {
			links = append(links, l)
		}
	}
	depth := map[uint64]int{seq: 0}
	// Links run from an earlier event to a later one: taken by decreasing
	// To, every child's depth is final before it is passed on.
	byTo := append([]verifier.Link(nil), links...)
	sort.SliceStable(byTo, func(i, j int) bool { return byTo[i].To > byTo[j].To })
	for _, l := range byTo {
		if d, ok := depth[l.To]; ok && depth[l.From] < d+1 {
			depth[l.From] = d + 1
		}
	}
	held := map[uint64]*verifier.Event{}
	for _, ev := range events {
		held[ev.Seq] = ev
	}
	maxDepth := 0
	for _, d := range depth {
		maxDepth = max(maxDepth, d)
	}
	cols := make([][]uint64, maxDepth+1)
	for s, d := range depth {
		cols[maxDepth-d] = append(cols[maxDepth-d], s)
	}
	c := &causalView{Seq: seq}
	pos := map[uint64][2]int{}
	rows := 0
	for x, col := range cols {
		sort.Slice(col, func(i, j int) bool { return col[i] < col[j] })
		for y, s := range col {
			n := nodeView{Seq: s, X: margin + x*(nodeW+colGap), Y: margin + y*(nodeH+rowGap), Target: s == seq}
			pos[s] = [2]int{n.X, n.Y}
			if ev, ok := held[s]; ok {
				n.Kind, n.Tool = ev.Envelope.Kind.String(), ev.Envelope.Tool
				c.Nodes = append(c.Nodes, n)
			} else {
				c.Gaps = append(c.Gaps, n)
			}
		}
		rows = max(rows, len(col))
	}
	sort.Slice(c.Nodes, func(i, j int) bool { return c.Nodes[i].Seq < c.Nodes[j].Seq })
	for _, l := range links {
		a, b := pos[l.From], pos[l.To]
		x1, y1, x2, y2 := a[0]+nodeW, a[1]+nodeH/2, b[0], b[1]+nodeH/2
		mx := (x1 + x2) / 2
		c.Edges = append(c.Edges, edgeView{From: l.From, To: l.To, Via: l.Via,
			D: fmt.Sprintf("M%d %d C%d %d %d %d %d %d", x1, y1, mx, y1, mx, y2, x2-4, y2)})
	}
	c.Width = 2*margin + len(cols)*nodeW + (len(cols)-1)*colGap
	c.Height = 2*margin + rows*nodeH + (rows-1)*rowGap
	return c, nil
}
