package report

import (
	"fmt"
	"regexp"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/agentflightrecorder/afr/format"
)

// A file edit is shown as a unified diff when the event records the text
// it replaced and the text it wrote: the arguments of an edit tool, as
// coding agents give them (Claude Code's Edit and MultiEdit, Gemini CLI's
// replace, the str_replace_editor of SWE-agent and OpenHands, SWE-agent's
// edit, an MCP filesystem server's edit_file). A tool that writes a whole
// file (Write, write_file, create) records no old text: its diff says so
// and shows the new text as added. A patch the event already holds (Codex
// CLI's apply_patch, SWE-agent's submission, any text that is a unified
// diff) is shown as it is.

// maxDiff bounds the diff kept for one event, so that one huge edit does
// not weigh on the page; a longer one is cut with a line saying so.
const maxDiff = 64 << 10

// editTool says whether an event's tool writes files: the vocabulary's
// file_edit (importer), or a tool whose name says so.
func editTool(envelopeTool, intentTool string) bool {
	if envelopeTool == "file_edit" {
		return true
	}
	name := strings.ToLower(intentTool)
	for _, w := range []string{"edit", "write", "replace", "patch", "create", "insert"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// diffOf returns the unified diff an event's payload shows, and a one-line
// summary of it ("path +3 −1"); "" when it shows none.
func diffOf(tool string, p *format.Payload) (diff, summary string) {
	if p == nil {
		return "", ""
	}
	var parts []string
	if it := p.Intent; it != nil && editTool(tool, it.Tool) {
		parts = argDiffs(it.Args)
	}
	if len(parts) == 0 && p.Content != nil && isPatch(p.Content.Text) {
		parts = []string{normalise(p.Content.Text)}
	}
	if len(parts) == 0 {
		return "", ""
	}
	d := strings.Join(parts, "")
	summary = diffSummary(d)
	if len(d) > maxDiff {
		d = truncate(d, maxDiff) + fmt.Sprintf("\n(the diff is %d bytes: the first %d are shown; the payload holds it whole)\n", len(d), maxDiff)
	}
	return d, summary
}

// argDiffs is the diff of each edit that arguments describe.
func argDiffs(args map[string]any) []string {
	path := firstString(args, "file_path", "path", "filename", "notebook_path")
	if path == "" {
		path = "(file not named)"
	}
	var out []string
	for _, pair := range [][2]string{{"old_string", "new_string"}, {"old_str", "new_str"}, {"search", "replace"}, {"oldText", "newText"}} {
		old, okOld := args[pair[0]].(string)
		new, okNew := args[pair[1]].(string)
		if okOld && okNew {
			return []string{udiff.Unified(path+" (replaced text)", path+" (its replacement)", lines(old), lines(new))}
		}
		if okNew && pair[0] == "old_str" {
			// str_replace_editor's insert: new text after a line.
			return []string{added(path, fmt.Sprintf("inserted after line %v", args["insert_line"]), new)}
		}
	}
	if edits, ok := args["edits"].([]any); ok {
		for _, e := range edits {
			if m, ok := e.(map[string]any); ok {
				out = append(out, argDiffs(withPath(m, path))...)
			}
		}
		return out
	}
	for _, k := range []string{"input", "patch"} {
		if s, ok := args[k].(string); ok && isPatch(s) {
			return []string{normalise(s)}
		}
	}
	if s := firstString(args, "content", "file_text"); s != "" {
		return []string{added(path, "the whole file written; its old content is not recorded", s)}
	}
	if m := sweEdit.FindStringSubmatch(firstString(args, "command")); m != nil {
		return []string{added(path, fmt.Sprintf("lines %s–%s replaced; the old lines are not recorded", m[1], m[2]), m[3])}
	}
	return nil
}

// sweEdit is SWE-agent's edit command: "edit N:M", the new lines, and
// "end_of_edit".
var sweEdit = regexp.MustCompile(`(?s)^edit (\d+):(\d+)\n(.*?)\n?end_of_edit\s*$`)

// added is the diff of text written where the old text is not recorded:
// every line added, under a hunk header that says what was written.
func added(path, what, text string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s (%s)\n+++ %s\n@@ %s @@\n", path, what, path, what)
	for _, l := range strings.SplitAfter(lines(text), "\n") {
		if l != "" {
			b.WriteString("+" + l)
		}
	}
	return b.String()
}

// withPath gives an edit of a list (MultiEdit's, edit_file's) the path of
// the call when it names none itself.
func withPath(m map[string]any, path string) map[string]any {
	if firstString(m, "file_path", "path") != "" {
		return m
	}
	c := make(map[string]any, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	c["file_path"] = path
	return c
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// lines ends a text with a newline, so that a diff of texts that do not
// end with one does not say so on every hunk.
func lines(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

func normalise(s string) string { return lines(strings.TrimLeft(s, "\r\n")) }

// isPatch says whether a text is a patch: a git or unified diff, or Codex
// CLI's apply_patch envelope.
func isPatch(s string) bool {
	s = strings.TrimLeft(s, "\r\n ")
	switch {
	case strings.HasPrefix(s, "*** Begin Patch"), strings.HasPrefix(s, "diff --git "):
		return true
	case strings.HasPrefix(s, "--- "):
		return strings.Contains(s, "\n+++ ") && strings.Contains(s, "\n@@")
	}
	return false
}

// diffSummary names the files a diff changes and counts its added and
// removed lines: "calc.py +3 −1".
func diffSummary(d string) string {
	var files []string
	add, del := 0, 0
	seen := map[string]bool{}
	name := func(f string) {
		f = strings.TrimSpace(f)
		if i := strings.Index(f, " ("); i > 0 {
			f = f[:i]
		}
		f = strings.TrimPrefix(strings.TrimPrefix(f, "a/"), "b/")
		if f != "" && f != "/dev/null" && !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "):
			name(l[4:])
		case strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "*** Update File: "), strings.HasPrefix(l, "*** Add File: "), strings.HasPrefix(l, "*** Delete File: "):
			name(l[strings.Index(l, ": ")+2:])
		case strings.HasPrefix(l, "+"):
			add++
		case strings.HasPrefix(l, "-"):
			del++
		}
	}
	return fmt.Sprintf("%s +%d −%d", strings.Join(files, ", "), add, del)
}
