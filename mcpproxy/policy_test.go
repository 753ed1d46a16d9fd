package mcpproxy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/mcpproxy"
)

func readPolicy(t *testing.T, body string) (*mcpproxy.Policy, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return mcpproxy.ReadPolicy(path)
}

// Policy ids are the name and a SHA-256 prefix of the rules' CBOR: they
// stay the same for the same file (golden values computed when effects
// were typed by package pdr; the first policy is docs/MCP.md's example).
func TestPolicyIDsUnchanged(t *testing.T) {
	for _, c := range []struct{ body, id string }{
		{`{"name": "read-only", "rules": [
			{"name": "reads",  "effect": "allow", "tools": ["read_*", "list_*", "search_files", "get_file_info"]},
			{"name": "mkdir",  "effect": "allow", "tools": ["create_directory"], "require_approval": true},
			{"name": "writes", "effect": "deny",  "tools": ["write_file", "edit_file", "move_file"]}]}`, "read-only@sha256:9e6745f914aedc8b"},
		{`{"name":"open","rules":[{"name":"all","effect":"allow"}]}`, "open@sha256:24d1f83816568529"},
		{`{"name":"none","rules":[]}`, "none@sha256:b0b2988b6bbe724b"},
	} {
		p, err := readPolicy(t, c.body)
		if err != nil {
			t.Fatal(err)
		}
		if p.ID() != c.id {
			t.Errorf("policy id %s, want %s", p.ID(), c.id)
		}
	}
}

// A rule's effect is "allow" or "deny": a rule without one, or with any
// other decision, is refused.
func TestPolicyEffects(t *testing.T) {
	for _, c := range []struct{ body, err string }{
		{`{"name":"p","rules":[{"name":"w","tools":["write_file"]}]}`, `rules[0] ("w") has no "effect"`},
		{`{"name":"p","rules":[{"name":"w","effect":null}]}`, `rules[0] ("w") has no "effect"`},
		{`{"name":"p","rules":[{"name":"w","effect":"ask"}]}`, `effect "ask", want "allow" or "deny"`},
		{`{"name":"p","rules":[{"name":"w","effect":"maybe"}]}`, `effect "maybe", want "allow" or "deny"`},
		{`{"name":"p","rules":[{"name":"w","effect":1}]}`, `unmarshal JSON number into Go`},
	} {
		if _, err := readPolicy(t, c.body); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want an error containing %q", c.body, err, c.err)
		}
	}
	p, err := readPolicy(t, `{"name":"p","rules":[{"name":"w","effect":"deny","tools":["write_*"]},{"name":"r","effect":"allow"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	for tool, want := range map[string]string{"write_file": "deny", "read_file": "allow"} {
		if ev := p.Evaluate(tool); ev.Decision.String() != want {
			t.Errorf("%s: %s, want %s", tool, ev.Decision, want)
		}
	}
}

// A rule without an allowing effect — one built in Go with the zero
// decision, which ReadPolicy would have refused — denies the tools it
// matches: the gate fails closed.
func TestPolicyZeroEffectDenies(t *testing.T) {
	p := &mcpproxy.Policy{Name: "built-in-go", Rules: []mcpproxy.ToolRule{{Name: "no-effect", Tools: []string{"rm_*"}}, {Name: "all", Effect: format.DecisionAllow}}}
	if ev := p.Evaluate("rm_rf"); ev.Decision != format.DecisionDeny || ev.Rule != "no-effect" {
		t.Fatalf("Evaluate(rm_rf) = %+v, want deny by rule no-effect", ev)
	}
	if ev := p.Evaluate("read_file"); ev.Decision != format.DecisionAllow {
		t.Fatalf("Evaluate(read_file) = %+v, want allow", ev)
	}
}

// A policy file is read as every reader reads it (docs/SPEC.md, "Reading
// JSON"): a name given twice, or in two spellings equal under case folding,
// is refused, and names match exactly. Before, the last one won, matched
// case-insensitively: the second "effect" below made the rule allow.
func TestPolicyRefusesEqualNames(t *testing.T) {
	for _, body := range []string{
		`{"name":"p","rules":[{"name":"w","effect":"deny","effect":"allow","tools":["write_*"]}]}`,
		`{"name":"p","rules":[{"name":"w","effect":"deny","Effect":"allow","tools":["write_*"]}]}`,
		`{"name":"p","rules":[{"name":"w","effect":"deny","tools":["write_*"]}],"RULES":[]}`,
		`{"name":"p","rules":[{"name":"w","Effect":"allow","tools":["write_*"]}]}`,
	} {
		if p, err := readPolicy(t, body); err == nil {
			t.Errorf("%s: read %+v", body, p)
		}
	}
}

// Tool names are not paths: "*" and "?" match "/" too, so a deny rule
// for a prefix stops every tool under it (with path.Match, "delete*" let
// "delete/all" through an allow-all rule).
func TestPolicyPatternsMatchSlash(t *testing.T) {
	p, err := readPolicy(t, `{"name":"p","rules":[
		{"name":"no-deletes","effect":"deny","tools":["delete*","rm?rf"]},
		{"name":"ns","effect":"allow","tools":["github/*"],"require_approval":true},
		{"name":"rest","effect":"allow","tools":["*"]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	for tool, want := range map[string]format.Decision{
		"delete/all": format.DecisionDeny, "delete": format.DecisionDeny, "rm/rf": format.DecisionDeny,
		"github/create_issue": format.DecisionAsk, "github/a/b": format.DecisionAsk,
		"a/b": format.DecisionAllow, "read": format.DecisionAllow, "/": format.DecisionAllow,
	} {
		if got := p.Evaluate(tool); got.Decision != want {
			t.Errorf("%s: %v (%v), want %v", tool, got.Decision, got.Reasons, want)
		}
	}
	open, err := readPolicy(t, `{"name":"open","rules":[{"name":"no-deletes","effect":"deny","tools":["delete*"]},{"name":"all","effect":"allow"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := open.Evaluate("delete/all"); got.Decision != format.DecisionDeny {
		t.Errorf("delete/all under an allow-all rule: %v (%v), want deny", got.Decision, got.Reasons)
	}
}
