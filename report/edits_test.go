package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/importer"
	"github.com/agentflightrecorder/afr/internal/traces"
)

// Each way an agent records a file edit gives its diff, with the files it
// names and its line counts; a tool that edits nothing gives none.
func TestDiffOf(t *testing.T) {
	intent := func(tool string, args map[string]any) *format.Payload {
		return &format.Payload{Intent: &format.Intent{Tool: tool, Args: args}}
	}
	cases := []struct {
		name, envTool string
		p             *format.Payload
		summary       string
		lines         []string // lines the diff must hold, in order
	}{
		{"Claude Code Edit", "file_edit", intent("Edit", map[string]any{"file_path": "/w/calc.py", "old_string": "    return a / b", "new_string": "    if b == 0:\n        raise ValueError\n    return a / b"}),
			"/w/calc.py +2 −0", []string{"--- /w/calc.py (replaced text)", "+++ /w/calc.py (its replacement)", "+    if b == 0:", "+        raise ValueError", "     return a / b"}},
		{"Claude Code MultiEdit", "file_edit", intent("MultiEdit", map[string]any{"file_path": "a.go", "edits": []any{
			map[string]any{"old_string": "x := 1", "new_string": "x := 2"}, map[string]any{"old_string": "y", "new_string": "z"}}}),
			"a.go +2 −2", []string{"-x := 1", "+x := 2", "-y", "+z"}},
		{"Claude Code Write", "file_edit", intent("Write", map[string]any{"file_path": "new.txt", "content": "one\ntwo"}),
			"new.txt +2 −0", []string{"--- new.txt (the whole file written; its old content is not recorded)", "+one", "+two"}},
		{"str_replace_editor str_replace", "file_edit", intent("str_replace_editor", map[string]any{"command": "str_replace", "path": "/ws/app.py", "old_str": "print 'hi'", "new_str": "print('hi')"}),
			"/ws/app.py +1 −1", []string{"-print 'hi'", "+print('hi')"}},
		{"str_replace_editor insert", "file_edit", intent("str_replace_editor", map[string]any{"command": "insert", "path": "f.py", "insert_line": 3, "new_str": "import os"}),
			"f.py +1 −0", []string{"@@ inserted after line 3 @@", "+import os"}},
		{"str_replace_editor create", "file_edit", intent("str_replace_editor", map[string]any{"command": "create", "path": "g.py", "file_text": "pass\n"}),
			"g.py +1 −0", []string{"+pass"}},
		{"SWE-agent edit search/replace", "file_edit", intent("edit", map[string]any{"path": "t.py", "search": "def f() -> int", "replace": "def f() -> int:"}),
			"t.py +1 −1", []string{"-def f() -> int", "+def f() -> int:"}},
		{"SWE-agent edit N:M", "file_edit", intent("edit", map[string]any{"path": "m.py", "command": "edit 15:16\n    d = abs(a - b)\n    return d\nend_of_edit"}),
			"m.py +2 −0", []string{"@@ lines 15–16 replaced; the old lines are not recorded @@", "+    d = abs(a - b)", "+    return d"}},
		{"Codex apply_patch", "file_edit", intent("apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: calc.py\n@@\n def divide(a, b):\n-    return a / b\n+    return a / b if b else 0\n*** End Patch\n"}),
			"calc.py +1 −1", []string{"*** Update File: calc.py", "-    return a / b", "+    return a / b if b else 0"}},
		{"MCP filesystem edit_file", "edit_file", intent("edit_file", map[string]any{"path": "/srv/x.md", "edits": []any{map[string]any{"oldText": "old", "newText": "new"}}}),
			"/srv/x.md +1 −1", []string{"--- /srv/x.md (replaced text)", "-old", "+new"}},
		{"a submission's patch", "submission", &format.Payload{Content: format.NewText([]byte("\r\ndiff --git a/t.py b/t.py\r\n--- a/t.py\r\n+++ b/t.py\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n"))},
			"t.py +1 −1", []string{"diff --git a/t.py b/t.py", "-a", "+b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, sum := diffOf(c.envTool, c.p)
			if sum != c.summary {
				t.Errorf("summary %q, want %q\n%s", sum, c.summary, d)
			}
			at := 0
			ls := strings.Split(d, "\n")
			for _, want := range c.lines {
				for at < len(ls) && ls[at] != want {
					at++
				}
				if at == len(ls) {
					t.Fatalf("diff lacks %q (in order):\n%s", want, d)
				}
			}
			if strings.Contains(d, "\r") {
				t.Errorf("diff keeps carriage returns:\n%q", d)
			}
		})
	}
	for name, p := range map[string]*format.Payload{
		"a shell command":             intent("Bash", map[string]any{"command": "cat x"}),
		"a view":                      intent("str_replace_editor", map[string]any{"command": "view", "path": "/ws"}),
		"a message tool with content": intent("send_message", map[string]any{"content": "--- a\n+++ b\n@@"}),
		"a response that is no patch": {Content: format.NewText([]byte("I fixed --- it"))},
		"no payload":                  nil,
	} {
		if d, sum := diffOf("other", p); d != "" || sum != "" {
			t.Errorf("%s: diff %q (%q), want none", name, d, sum)
		}
	}
}

// A huge edit's diff is cut, saying so.
func TestDiffOfHugeEdit(t *testing.T) {
	big := strings.Repeat("line\n", 40_000)
	d, sum := diffOf("file_edit", &format.Payload{Intent: &format.Intent{Tool: "Write", Args: map[string]any{"file_path": "big", "content": big}}})
	if len(d) > maxDiff+200 || !strings.Contains(d, "the first 65536 are shown") {
		t.Errorf("diff of %d bytes, tail %q", len(d), d[len(d)-120:])
	}
	if sum != "big +40000 −0" {
		t.Errorf("summary %q: want the whole edit counted", sum)
	}
}

// On real trajectories (../shared/traces, and the Claude Code and Codex
// CLI sessions in importer/testdata): every file edit an importer reads
// gives a diff naming a file, and nothing that is not an edit or a patch
// does.
func TestDiffOfRealTrajectories(t *testing.T) {
	files, err := traces.All()
	if err != nil {
		t.Fatal(err)
	}
	cli, _ := filepath.Glob("../importer/testdata/*/*.jsonl")
	edits := 0
	for _, f := range append(files, cli...) {
		name := traces.Format(f)
		if strings.Contains(f, "importer/testdata/") {
			name = filepath.Base(filepath.Dir(f))
		}
		imp, err := importer.Read(name, f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, ev := range imp.Events {
			e := ev.Event
			d, sum := diffOf(e.Tool, &e.Payload)
			switch {
			case e.Tool == importer.ToolFileEdit:
				edits++
				if d == "" || strings.HasPrefix(sum, " ") || strings.HasPrefix(sum, "(file not named)") {
					t.Errorf("%s step %d: the edit %s gives diff %q (%q)", filepath.Base(f), ev.Step, compactJSON(e.Payload.Intent), d, sum)
				}
			case d != "" && e.Tool != importer.ToolSubmission && e.Tool != importer.ToolSubmit:
				t.Errorf("%s step %d: %s (not an edit) gives a diff: %q", filepath.Base(f), ev.Step, e.Tool, sum)
			}
		}
	}
	if edits < 5 {
		t.Fatalf("%d edits in the real trajectories: the test shows little", edits)
	}
}
