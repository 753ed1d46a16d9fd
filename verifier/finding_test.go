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
