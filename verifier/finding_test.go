package verifier_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/verifier"
)

// A kind nobody registered must never let a log verify: it classifies as
// tampered (fail closed).
func TestUnknownKindIsTampered(t *testing.T) {
	for _, k := range []verifier.FindingKind{"", "no_such_kind", "Chain_Break"} {
		if c := k.Class(); c != verifier.ClassTampered {
			t.Errorf("%q: class %s, want tampered", k, c)
		}
	}
}

// kindConstants parses the package's non-test sources and returns every
// constant declared with type FindingKind, by name.
func kindConstants(t *testing.T) map[string]verifier.FindingKind {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]verifier.FindingKind{}
	for _, f := range pkgs["verifier"].Files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "FindingKind" {
					continue
				}
				for i, name := range vs.Names {
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s: not a string literal", name.Name)
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					out[name.Name] = verifier.FindingKind(v)
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no FindingKind constants found")
	}
	return out
}

// Every FindingKind constant is in the table, with a class and a meaning,
// and the table holds nothing else.
func TestEveryKindIsInTheTable(t *testing.T) {
	consts := kindConstants(t)
	table := map[verifier.FindingKind]bool{}
	for _, k := range verifier.Kinds() {
		if table[k] {
			t.Errorf("%s is in the table twice", k)
		}
		table[k] = true
		if k.Doc() == "" {
			t.Errorf("%s has no meaning in the table", k)
		}
	}
	declared := map[verifier.FindingKind]bool{}
	for name, k := range consts {
		declared[k] = true
		if !table[k] {
			t.Errorf("%s (%q) is not in the kind table: it would classify as tampered", name, k)
		}
	}
	for k := range table {
		if !declared[k] {
			t.Errorf("%s is in the table but declared by no constant", k)
		}
	}
}

// specKindTable renders the table as docs/SPEC.md lists it.
func specKindTable() string {
	var b strings.Builder
	b.WriteString("| kind | class | meaning |\n|---|---|---|\n")
	for _, k := range verifier.Kinds() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", k, k.Class(), k.Doc())
	}
	return b.String()
}

// docs/SPEC.md ("Verification") lists exactly the table: the same kinds in
// the same order, with the same classes and meanings.
func TestSpecListsEveryKind(t *testing.T) {
	raw, err := os.ReadFile("../docs/SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	spec := string(raw)
	start := strings.Index(spec, "\n## Verification\n")
	if start < 0 {
		t.Fatal(`SPEC.md has no "Verification" section`)
	}
	section := spec[start:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:end+1]
	}
	from := strings.Index(section, "| kind | class | meaning |")
	if from < 0 {
		t.Fatal("the Verification section has no kind table")
	}
	var rows []string
	for _, line := range strings.Split(section[from:], "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		rows = append(rows, line)
	}
	if got, want := strings.Join(rows, "\n")+"\n", specKindTable(); got != want {
		t.Errorf("SPEC.md's kind table differs from verifier's; it should read:\n%s", want)
	}
}

func TestFindingCovers(t *testing.T) {
	u := func(v uint64) *uint64 { return &v }
	// Epochs of ten events: epoch 1 holds events 10..19.
	layout := func(seq uint64) (uint64, bool) { return seq / 10, seq < 30 }
	for _, c := range []struct {
		name    string
		f       verifier.Finding
		seq     uint64
		epochOf func(uint64) (uint64, bool)
		want    bool
	}{
		{"its event", verifier.Finding{Seq: u(5)}, 5, nil, true},
		{"another event", verifier.Finding{Seq: u(5)}, 6, nil, false},
		{"Count 1 is the event alone", verifier.Finding{Seq: u(5), Count: 1}, 6, nil, false},
		{"first of a run", verifier.Finding{Seq: u(5), Count: 3}, 5, nil, true},
		{"last of a run", verifier.Finding{Seq: u(5), Count: 3}, 7, nil, true},
		{"after a run", verifier.Finding{Seq: u(5), Count: 3}, 8, nil, false},
		{"before a run", verifier.Finding{Seq: u(5), Count: 3}, 4, nil, false},
		{"an event of its epoch", verifier.Finding{Epoch: u(1)}, 15, layout, true},
		{"an event of another epoch", verifier.Finding{Epoch: u(1)}, 25, layout, false},
		{"an event past the layout", verifier.Finding{Epoch: u(3)}, 35, layout, false},
		{"an epoch without a layout", verifier.Finding{Epoch: u(1)}, 15, nil, false},
		{"an epoch's finding naming its first event, another event of it", verifier.Finding{Epoch: u(1), Seq: u(10)}, 15, layout, true},
		{"the same without a layout", verifier.Finding{Epoch: u(1), Seq: u(10)}, 15, nil, false},
		{"the same, its event without a layout", verifier.Finding{Epoch: u(1), Seq: u(10)}, 10, nil, true},
		{"neither Seq nor Epoch", verifier.Finding{}, 0, layout, false},
	} {
		if got := c.f.Covers(c.seq, c.epochOf); got != c.want {
			t.Errorf("%s: %v.Covers(%d) = %v, want %v", c.name, c.f, c.seq, got, c.want)
		}
	}
}
