package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// Every afr command shown in the documentation is run by a testscript in
// testdata/*.txtar. The rule, for a newcomer adding an example:
//
//   - An example is an afr command line in a fenced code block of README.md
//     or docs/*.md: any command whose program is afr (or a path ending in
//     /afr, such as bin/afr) in a sh, bash, shell or console block (console:
//     only lines after a "$ " prompt), and lines starting with "afr " or
//     "$ afr " in an unlabeled block. Shell comments are not examples.
//   - An example is run when a testscript line that succeeds (exec afr …, not
//     ! exec) has the same command and the same flag names. The command is
//     the subcommand plus a second word when it is a lowercase name
//     (checkpoint keygen, import swe-agent); flag values and arguments may
//     differ (the testscript uses its own files), and so may the order and
//     repetition of flags. A testscript may add only the flags in
//     testOnlyFlags, which a test needs to listen on loopback.
//   - A block that cannot run in a test (it needs a public RPC, a real agent
//     CLI, a long benchmark) has the HTML comment
//     <!-- example: not run: REASON --> on the line just before it.
var testOnlyFlags = map[string]bool{
	"listen":     true, // port 0: a free loopback port, never a fixed one
	"addr-file":  true, // where the address picked for port 0 is written
	"block-time": true, // a fast local chain, so confirmations come quickly
}

// docExample is one afr command line of a page.
type docExample struct {
	page   string // relative to the repository root
	line   int
	text   string // the command line as written
	notRun string // the reason given by a not-run marker, or ""
	key    invocation
}

// invocation is what an example and a testscript line are compared by.
type invocation struct {
	command string   // e.g. "verify", "checkpoint keygen"
	flags   []string // sorted, without dashes or values
}

func (v invocation) String() string {
	s := "afr " + v.command
	for _, f := range v.flags {
		s += " --" + f
	}
	return s
}

// covers reports whether the testscript invocation t runs the example d.
func (t invocation) covers(d invocation) bool {
	if t.command != d.command {
		return false
	}
	want := map[string]bool{}
	for _, f := range d.flags {
		want[f] = true
	}
	got := map[string]bool{}
	for _, f := range t.flags {
		if !want[f] && !testOnlyFlags[f] {
			return false
		}
		got[f] = true
	}
	for f := range want {
		if !got[f] {
			return false
		}
	}
	return true
}

var (
	notRunMarker = regexp.MustCompile(`^<!--\s*example:\s*not run:(.*?)-->\s*$`)
	fence        = regexp.MustCompile("^\\s*(```+|~~~+)\\s*([A-Za-z]*)")
	subcommand   = regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)
)

func TestDocExamplesAreRun(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{"../../README.md"}, pages...)
	var examples []docExample
	for _, p := range pages {
		ex, err := pageExamples(p)
		if err != nil {
			t.Fatal(err)
		}
		examples = append(examples, ex...)
	}
	if len(examples) < 50 {
		t.Fatalf("found only %d examples in %d pages: is the extraction broken?", len(examples), len(pages))
	}
	runs, err := scriptInvocations("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		if ex.notRun != "" || runsAny(runs, ex.key) {
			continue
		}
		t.Errorf("%s:%d: no testscript in cmd/afr/testdata runs %q (as %s); add it to the page's testscript, or mark its block <!-- example: not run: REASON -->",
			ex.page, ex.line, ex.text, ex.key)
	}
}

func runsAny(runs []invocation, ex invocation) bool {
	for _, r := range runs {
		if r.covers(ex) {
			return true
		}
	}
	return false
}

// pageExamples returns the afr examples of one page.
func pageExamples(path string) ([]docExample, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	page := strings.TrimPrefix(filepath.ToSlash(path), "../../")
	lines := strings.Split(string(b), "\n")
	var out []docExample
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		reason, marked, err := markerBefore(lines, i)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", page, i, err)
		}
		end := closingFence(lines, i, m[1])
		ex, err := blockExamples(page, lines, i+1, end, m[2])
		if err != nil {
			return nil, err
		}
		if marked && len(ex) == 0 {
			return nil, fmt.Errorf("%s:%d: a not-run marker before a block with no afr example", page, i)
		}
		for j := range ex {
			ex[j].notRun = reason
		}
		out = append(out, ex...)
		i = end
	}
	return out, nil
}

// markerBefore reads a not-run marker on the line before a fence.
func markerBefore(lines []string, fenceLine int) (reason string, marked bool, err error) {
	if fenceLine == 0 {
		return "", false, nil
	}
	prev := strings.TrimSpace(lines[fenceLine-1])
	if !strings.HasPrefix(prev, "<!--") || !strings.Contains(prev, "example") {
		return "", false, nil
	}
	m := notRunMarker.FindStringSubmatch(prev)
	if m == nil || strings.TrimSpace(m[1]) == "" {
		return "", false, fmt.Errorf("malformed marker %q: want <!-- example: not run: REASON -->", prev)
	}
	return strings.TrimSpace(m[1]), true, nil
}

// closingFence returns the index of the line closing the block opened at
// line open (len(lines) when the block is never closed).
func closingFence(lines []string, open int, marker string) int {
	for j := open + 1; j < len(lines); j++ {
		if strings.HasPrefix(strings.TrimSpace(lines[j]), marker) {
			return j
		}
	}
	return len(lines)
}

// blockExamples returns the afr command lines in lines[from:to], a block
// with the given label.
func blockExamples(page string, lines []string, from, to int, label string) ([]docExample, error) {
	var out []docExample
	for i := from; i < to; i++ {
		start := i
		text := strings.TrimSpace(lines[i])
		for strings.HasSuffix(text, `\`) && i+1 < to {
			i++
			text = strings.TrimSuffix(text, `\`) + " " + strings.TrimSpace(lines[i])
		}
		switch label {
		case "sh", "bash", "shell":
		case "console":
			if !strings.HasPrefix(text, "$ ") {
				continue
			}
		case "":
			if !strings.HasPrefix(text, "afr ") && !strings.HasPrefix(text, "$ afr ") {
				continue
			}
		default:
			continue
		}
		text = strings.TrimPrefix(text, "$ ")
		words, err := shellWords(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", page, start+1, err)
		}
		for _, cmd := range afrCommands(words) {
			out = append(out, docExample{page: page, line: start + 1, text: text, key: invocationOf(cmd)})
		}
	}
	return out, nil
}

// shellWords splits a shell line into words, operators (| & ; && ||) as
// words of their own, stopping at a comment. Quotes are removed.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unterminated %c quote in %q", c, line)
			}
			cur.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(line[i+1])
			inWord = true
			i++
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			flush()
			return words, nil
		case c == '|' || c == '&' || c == ';':
			flush()
			op := string(c)
			if i+1 < len(line) && line[i+1] == c && c != ';' {
				op += string(c)
				i++
			}
			words = append(words, op)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, nil
}

// afrCommands returns the arguments of each afr command in a line's words.
func afrCommands(words []string) [][]string {
	var out [][]string
	for start := 0; start < len(words); {
		end := start
		for end < len(words) && !isOperator(words[end]) {
			end++
		}
		cmd := words[start:end]
		for len(cmd) > 0 && strings.Contains(cmd[0], "=") && !strings.HasPrefix(cmd[0], "-") {
			cmd = cmd[1:] // VAR=value before the program
		}
		if len(cmd) > 0 && (cmd[0] == "afr" || strings.HasSuffix(cmd[0], "/afr")) {
			out = append(out, cmd[1:])
		}
		start = end + 1
	}
	return out
}

func isOperator(w string) bool {
	switch w {
	case "|", "||", "&", "&&", ";":
		return true
	}
	return false
}

// invocationOf reduces afr's arguments to the command and its flag names;
// nothing after "--" is afr's.
func invocationOf(args []string) invocation {
	var v invocation
	if len(args) > 0 {
		v.command = args[0]
		args = args[1:]
	}
	if len(args) > 0 && subcommand.MatchString(args[0]) {
		v.command += " " + args[0]
		args = args[1:]
	}
	seen := map[string]bool{}
	for _, a := range args {
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !seen[name] {
			seen[name] = true
			v.flags = append(v.flags, name)
		}
	}
	sort.Strings(v.flags)
	return v
}

// scriptInvocations returns the afr commands the testscripts in dir run and
// expect to succeed.
func scriptInvocations(dir string) ([]invocation, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	var out []invocation
	for _, f := range files {
		inv, err := fileInvocations(f)
		if err != nil {
			return nil, err
		}
		out = append(out, inv...)
	}
	return out, nil
}

// fileInvocations reads the script part of one txtar file (up to its first
// "-- name --" file line).
func fileInvocations(path string) ([]invocation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []invocation
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			break
		}
		if strings.HasPrefix(line, "[") { // a condition: [!short] exec afr …
			if _, rest, ok := strings.Cut(line, "] "); ok {
				line = strings.TrimSpace(rest)
			}
		}
		rest, ok := strings.CutPrefix(line, "exec afr ")
		if !ok {
			continue // comments, other commands, and ! exec afr (a failure is not an example)
		}
		words, err := shellWords(strings.TrimSuffix(backgroundSuffix.ReplaceAllString(rest, ""), " "))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		out = append(out, invocationOf(words))
	}
	return out, sc.Err()
}

// backgroundSuffix is testscript's "&name&" (or "&") at the end of a line.
var backgroundSuffix = regexp.MustCompile(`\s&(\w+&)?$`)

// TestDocExampleRule pins the matching rule on small pages and scripts.
func TestDocExampleRule(t *testing.T) {
	page := writeFile(t, "page.md", "```sh\n"+
		"# afr comment --not-an-example\n"+
		"echo '{}' | bin/afr record --log ./x --recorder 'a b' --json   # from stdin\n"+
		"bin/afr checkpoint cosign --checkpoint c \\\n    --witness w1 --witness w2\n"+
		"go build -o bin/afr ./cmd/afr\n"+
		"```\n\n"+
		"<!-- example: not run: it needs a public RPC -->\n"+
		"```\nafr replay 0xTX --rpc URL\n```\n\n"+
		"```json\n{\"command\": \"afr hook --serve URL\"}\n```\n")
	ex, err := pageExamples(page)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(ex))
	for i, e := range ex {
		got[i] = fmt.Sprintf("%d %s %q", e.line, e.key, e.notRun)
	}
	want := []string{
		`3 afr record --json --log --recorder ""`,
		`4 afr checkpoint cosign --checkpoint --witness ""`,
		`11 afr replay --rpc "it needs a public RPC"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("examples:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	script := writeFile(t, "s.txtar", "exec afr record --log l --recorder r --json --listen 127.0.0.1:0 &bg&\n"+
		"! exec afr checkpoint cosign --checkpoint c --witness w\n"+
		"exec afr checkpoint cosign --checkpoint c --witness w --vkey v\n"+
		"-- file.txt --\nexec afr replay 0x --rpc u\n")
	runs, err := fileInvocations(script)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false, false} {
		if got := runsAny(runs, ex[i].key); got != want {
			t.Errorf("%s run: %v, want %v (runs %v)", ex[i].key, got, want, runs)
		}
	}
}

// TestDocExampleMarkerErrors: a marker without a reason, or before a block
// with no example, is an error, not a silent skip.
func TestDocExampleMarkerErrors(t *testing.T) {
	for name, text := range map[string]string{
		"no reason":  "<!-- example: not run: -->\n```sh\nafr status --log x\n```\n",
		"misspelled": "<!-- example: skip: slow -->\n```sh\nafr status --log x\n```\n",
		"no example": "<!-- example: not run: slow -->\n```sh\nls\n```\n",
	} {
		if _, err := pageExamples(writeFile(t, "page.md", text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
