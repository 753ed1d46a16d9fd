// Package workload generates AFR's deterministic synthetic agent sessions,
// the workload of the paper's evaluation (docs/PERFORMANCE.md): events over
// eight tool categories — file read/write, shell, API, database query,
// retrieval, code execution, approval gate, delegation — with about 15% of
// events issued concurrently in groups of 2–3, realistic argument and
// output sizes, and context provenance linking events to earlier ones.
//
// The same seed always yields the same events, byte for byte, so benchmarks,
// tests and the demo can share it (the paper used seed 42).
package workload

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"

	"github.com/agentflightrecorder/afr/format"
)

// Categories are the eight tool categories, in the order they are numbered.
var Categories = []string{"file", "shell", "api", "db_query", "retrieval", "code_exec", "approval", "delegation"}

// weights of each category, summing to 100: agents read and run far more
// than they approve or delegate.
var weights = []int{26, 20, 12, 10, 14, 10, 4, 4}

// ConcurrentShare is the target share of events issued in concurrency groups.
const ConcurrentShare = 0.15

// Generator produces a session's events one at a time.
type Generator struct {
	rng     *rand.Rand
	seq     uint64 // sequence number the next event will get when recorded in order
	now     int64  // simulated clock, Unix nanoseconds
	groupN  int    // events left in the current concurrency group
	group   string
	groups  int
	digests [][]byte // recent output digests, for context provenance
}

// New returns a generator for seed.
func New(seed uint64) *Generator {
	return &Generator{
		rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		now: 1_767_225_600_000_000_000, // 2026-01-01T00:00:00Z
	}
}

// Generate returns the first n events for seed.
func Generate(seed uint64, n int) []format.Event {
	g := New(seed)
	out := make([]format.Event, n)
	for i := range out {
		out[i] = g.Next()
	}
	return out
}

// Next returns the next event. Parents in context provenance assume events
// are recorded in generation order from sequence number 0.
func (g *Generator) Next() format.Event {
	if g.groupN == 0 {
		g.group = ""
		// Groups of 2–3 (mean 2.5): starting one with probability p gives a
		// concurrent share of 2.5p/(1+1.5p); p ≈ 0.075 for 15%.
		if g.rng.Float64() < 0.075 {
			g.groups++
			g.group = fmt.Sprintf("g%d", g.groups)
			g.groupN = 2 + g.rng.IntN(2)
		}
	}
	if g.groupN > 0 {
		g.groupN--
	}
	cat := g.category()
	ev := g.event(cat)
	ev.Group = g.group
	g.seq++
	return ev
}

func (g *Generator) category() int {
	x := g.rng.IntN(100)
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

func (g *Generator) digest() []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], g.rng.Uint64())
	d := sha256.Sum256(b[:])
	return d[:]
}

func (g *Generator) pick(xs []string) string { return xs[g.rng.IntN(len(xs))] }

var (
	files    = []string{"src/main.go", "src/server/handler.go", "README.md", "config/prod.yaml", "tests/test_api.py", "package.json", "docs/design.md", "migrations/0042_users.sql"}
	commands = []string{"go test ./...", "ls -la src", "git status --short", "make build", "grep -rn TODO src", "pytest -q tests/test_api.py", "kubectl get pods -n prod", "cat /etc/hosts"}
	urls     = []string{"https://api.github.com/repos/acme/app/pulls", "https://api.stripe.com/v1/charges", "https://hooks.slack.com/services/T0/B0", "https://api.acme.internal/v2/orders"}
	queries  = []string{"SELECT id, email FROM users WHERE created_at > $1 LIMIT 50", "UPDATE orders SET status = 'shipped' WHERE id = $1", "SELECT count(*) FROM payments", "DELETE FROM sessions WHERE expires_at < now()"}
	searches = []string{"refund policy for enterprise customers", "how to rotate the API signing key", "incident 2291 root cause", "deployment checklist"}
	agents   = []string{"agent:planner", "agent:coder", "agent:reviewer", "agent:ops"}
)

func (g *Generator) event(cat int) format.Event {
	start := g.now + int64(g.rng.IntN(5_000_000))
	end := start + int64(1_000_000+g.rng.IntN(900_000_000))
	g.now = end
	ok := format.Execution{Status: format.StatusOK, Start: start, End: end, OutputDigest: g.digest()}
	p := format.Payload{}
	tool := Categories[cat]
	kind := format.KindToolCall
	switch tool {
	case "file":
		f := g.pick(files)
		if g.rng.IntN(3) == 0 {
			tool = "file_write"
			p.Intent = &format.Intent{Tool: tool, Args: map[string]any{"path": f, "bytes": uint64(200 + g.rng.IntN(8000))}}
			p.Effects = []format.Effect{{FileWrite: &format.FileWrite{Path: f, Before: g.digest(), After: g.digest()}}}
		} else {
			tool = "file_read"
			p.Intent = &format.Intent{Tool: tool, Args: map[string]any{"path": f}}
		}
	case "shell":
		code := int64(0)
		if g.rng.IntN(10) == 0 {
			code = 1
			ok.Status = format.StatusFailed
		}
		ok.ExitCode = &code
		p.Intent = &format.Intent{Tool: tool, Args: map[string]any{"cmd": g.pick(commands), "timeout_s": uint64(60)}}
	case "api":
		u := g.pick(urls)
		p.Intent = &format.Intent{Tool: tool, Args: map[string]any{"method": "POST", "url": u}}
		p.Effects = []format.Effect{{APICall: &format.APICall{Method: "POST", URL: u, Status: 200, ResponseDigest: g.digest()}}}
	case "db_query":
		q := g.pick(queries)
		p.Intent = &format.Intent{Tool: tool, Args: map[string]any{"db": "prod", "sql": q}}
		if q[0] != 'S' {
			p.Effects = []format.Effect{{DBChange: &format.DBChange{Database: "prod", Table: "orders", Operation: "update", Rows: uint64(1 + g.rng.IntN(20))}}}
		}
	case "retrieval":
		p.Intent = &format.Intent{Tool: tool, Args: map[string]any{"query": g.pick(searches), "k": uint64(5)}}
		kind = format.KindObservation
	case "code_exec":
		p.Intent = &format.Intent{Tool: tool, Args: map[string]any{"lang": "python", "code_sha256": hex.EncodeToString(g.digest())}}
	case "approval":
		kind = format.KindApproval
		p.Intent = &format.Intent{Tool: tool, Args: map[string]any{"action": "deploy", "env": "prod"}}
		p.Policy = &format.PolicyEvaluation{PolicyID: "prod-change", Decision: format.DecisionAsk, Rule: "human-approval"}
		sig := make([]byte, 65)
		for i := 0; i < 65; i += 32 {
			copy(sig[i:], g.digest())
		}
		p.Approval = &format.Approval{Approver: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", Decision: format.DecisionAllow, Signature: sig}
	case "delegation":
		kind = format.KindDelegation
		to := g.pick(agents)
		p.Intent = &format.Intent{Tool: tool, Args: map[string]any{"task": "review the pull request", "to": to}}
		tok := append(g.digest(), g.digest()...)
		p.Delegation = &format.DelegationProvenance{Delegator: "agent:lead", Delegate: to, Scope: []string{"file_read", "shell"}, Token: tok}
		if g.seq > 0 {
			parent := g.seq - 1
			p.Delegation.Parent = &parent
		}
	}
	if kind != format.KindApproval {
		p.Execution = &ok
	}
	// Context provenance: most actions depend on an earlier output.
	if g.seq > 0 && g.rng.IntN(10) < 6 && len(g.digests) > 0 {
		back := uint64(1 + g.rng.IntN(min(int(g.seq), 8)))
		p.Context = &format.ContextProvenance{
			Inputs:  []format.Input{{Source: "tool_output", Digest: g.digests[len(g.digests)-1]}},
			Parents: []uint64{g.seq - back},
		}
	}
	g.digests = append(g.digests[max(0, len(g.digests)-7):], ok.OutputDigest)
	return format.Event{Tool: tool, Kind: kind, Payload: p}
}
