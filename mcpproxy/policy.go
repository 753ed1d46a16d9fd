package mcpproxy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// Policy gates tool calls by tool name. It is evaluated as pdr.Policy is:
// deny-overrides (any matching deny rule denies; otherwise any matching
// allow rule allows; otherwise the call is denied because no rule allows
// it), and approval is required when a matching allow rule asks for it.
// Effects are "allow" and "deny".
type Policy struct {
	Name  string     `json:"name"`
	Rules []ToolRule `json:"rules"`
	id    string
}

// ToolRule matches tool calls by tool name.
type ToolRule struct {
	Name string `json:"name"`
	// Effect is format.DecisionAllow or format.DecisionDeny ("allow" or
	// "deny" in JSON); a rule without one is refused.
	Effect format.Decision `json:"effect"`
	// Tools are path.Match patterns over the tool name ("write_*"), with
	// "/" an ordinary character (toolMatch); empty matches every tool.
	Tools []string `json:"tools,omitempty"`
	// RequireApproval asks for human approval when the rule allows.
	RequireApproval bool `json:"require_approval,omitempty"`
}

// Evaluation is a policy's answer for one tool call.
type Evaluation struct {
	Decision format.Decision // allow, deny, or ask (allowed only with approval)
	Rule     string          // the rule that decided, if one did
	Reasons  []string
}

// ruleEffects are the effects a rule may have, by their names in the file.
var ruleEffects = map[string]format.Decision{"allow": format.DecisionAllow, "deny": format.DecisionDeny}

// ruleCBOR is a ToolRule as the policy id hashes it: the file's keys, the
// effect as its name.
type ruleCBOR struct {
	Name            string   `cbor:"name"`
	Effect          string   `cbor:"effect"`
	Tools           []string `cbor:"tools,omitempty"`
	RequireApproval bool     `cbor:"require_approval,omitempty"`
}

// ReadPolicy reads a policy file (JSON, unknown fields refused).
func ReadPolicy(file string) (*Policy, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Name  string `json:"name"`
		Rules []struct {
			Name            string   `json:"name"`
			Effect          *string  `json:"effect"`
			Tools           []string `json:"tools"`
			RequireApproval bool     `json:"require_approval"`
		} `json:"rules"`
	}
	if err := strictjson.UnmarshalKnown(b, &raw); err != nil {
		return nil, fmt.Errorf("policy %s: %w", file, err)
	}
	p := &Policy{Name: raw.Name}
	if p.Name == "" {
		return nil, fmt.Errorf("policy %s: \"name\" is required", file)
	}
	var hashed []ruleCBOR // nil for no rules, as p.Rules
	for i, r := range raw.Rules {
		if r.Effect == nil {
			return nil, fmt.Errorf("policy %s: rules[%d] (%q) has no \"effect\", want \"allow\" or \"deny\"", file, i, r.Name)
		}
		effect, ok := ruleEffects[*r.Effect]
		if !ok {
			return nil, fmt.Errorf("policy %s: rules[%d] (%q): effect %q, want \"allow\" or \"deny\"", file, i, r.Name, *r.Effect)
		}
		for _, pat := range r.Tools {
			if _, err := toolMatch(pat, ""); err != nil {
				return nil, fmt.Errorf("policy %s: rules[%d] (%q): tool pattern %q: %w", file, i, r.Name, pat, err)
			}
		}
		p.Rules = append(p.Rules, ToolRule{Name: r.Name, Effect: effect, Tools: r.Tools, RequireApproval: r.RequireApproval})
		hashed = append(hashed, ruleCBOR{Name: r.Name, Effect: *r.Effect, Tools: r.Tools, RequireApproval: r.RequireApproval})
	}
	enc, err := format.Marshal(hashed)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", file, err)
	}
	sum := sha256.Sum256(enc)
	p.id = p.Name + "@sha256:" + hex.EncodeToString(sum[:8])
	return p, nil
}

// ID names the policy and its rules: the name and the first bytes of the
// SHA-256 of the rules' deterministic CBOR encoding.
func (p *Policy) ID() string { return p.id }

func (r *ToolRule) matches(tool string) bool {
	if len(r.Tools) == 0 {
		return true
	}
	for _, pat := range r.Tools {
		if ok, _ := toolMatch(pat, tool); ok {
			return true
		}
	}
	return false
}

// toolMatch is path.Match over tool names, which are not paths: "*" and
// "?" also match "/" (a deny rule "delete*" must stop "delete/all"). Both
// sides have "/" replaced by the byte 0xff, which no UTF-8 text (JSON
// strings, so every tool name and pattern) holds.
func toolMatch(pattern, tool string) (bool, error) {
	return path.Match(strings.ReplaceAll(pattern, "/", "\xff"), strings.ReplaceAll(tool, "/", "\xff"))
}

// Evaluate decides a call of tool.
func (p *Policy) Evaluate(tool string) Evaluation {
	var allow, ask *ToolRule
	for i := range p.Rules {
		r := &p.Rules[i]
		if !r.matches(tool) {
			continue
		}
		if r.Effect != format.DecisionAllow {
			// deny, and any other effect (a rule built in Go without one):
			// fail closed.
			return Evaluation{Decision: format.DecisionDeny, Rule: r.Name, Reasons: []string{"denied: rule " + r.Name + " matched"}}
		}
		if allow == nil {
			allow = r
		}
		if r.RequireApproval && ask == nil {
			ask = r
		}
	}
	switch {
	case ask != nil:
		return Evaluation{Decision: format.DecisionAsk, Rule: ask.Name, Reasons: []string{"approval required: rule " + ask.Name}}
	case allow != nil:
		return Evaluation{Decision: format.DecisionAllow, Rule: allow.Name, Reasons: []string{"allowed: rule " + allow.Name + " matched"}}
	}
	return Evaluation{Decision: format.DecisionDeny, Reasons: []string{"denied: no rule allows tool " + tool}}
}
