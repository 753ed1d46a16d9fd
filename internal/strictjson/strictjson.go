// Package strictjson is the one reading of untrusted JSON in AFR: every
// door (event JSON, the anchors, batches and policy files, MANIFEST,
// deployment and chain files, imported trajectories, request bodies, MCP
// frames) reads its bytes through it, so that AFR reads a document exactly
// as any conforming peer reads the same bytes after it (docs/SPEC.md,
// "Reading JSON").
//
// A document is refused unless it is one JSON value (RFC 8259) in valid
// UTF-8, optionally surrounded by whitespace, in which no object has two
// members whose names are equal, or equal under Unicode simple case folding
// ("name" and "Name", "k" and the Kelvin sign "\u212a"). Object member names
// then match Go struct fields exactly (case-sensitive): readers disagree on
// which of two equal names wins (Go's encoding/json takes the last, matching
// case-insensitively; the MCP SDKs, Python and JavaScript match exactly,
// last wins; other readers take the first), and on a document without
// such pairs they all agree.
//
// Decoding is that of encoding/json/v2 (github.com/go-json-experiment/json,
// default options): exact names, a JSON null sets a value to its zero,
// time.Duration has no default form.
//
// # Security
//
// A refusal is an *Error naming the object (a JSON Pointer, RFC 6901) and
// the names; a syntax error or a type mismatch is the underlying decoder's
// error, which names the JSON Pointer too. Nothing in a refused document is
// decoded into v.
package strictjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Error reports an object holding two members whose names are equal
// (First == Second) or equal under Unicode simple case folding.
type Error struct {
	Pointer       string // the object, as a JSON Pointer ("" is the top-level value)
	First, Second string // the two names, as they appear in the document
}

func (e *Error) Error() string {
	where := "the top-level object"
	if e.Pointer != "" {
		where = fmt.Sprintf("the object at %q", e.Pointer)
	}
	switch {
	case e.First == e.Second:
		return fmt.Sprintf("strictjson: duplicate key %q in %s", e.First, where)
	case fold(e.First) == fold(e.Second):
		return fmt.Sprintf("strictjson: keys %q and %q in %s are equal under case folding", e.First, e.Second, where)
	}
	return fmt.Sprintf("strictjson: keys %q and %q in %s name one protobuf field, or two fields of one oneof", e.First, e.Second, where)
}

// SyntaxError is the error of a document that is not JSON (or not UTF-8):
// ByteOffset says where it broke, JSONPointer in which value.
type SyntaxError = jsontext.SyntacticError

// Check reports whether data is one JSON value that the package accepts
// (see the package documentation), without decoding it: for bytes that are
// forwarded as they are.
func Check(data []byte) error { return check(data, fold) }

// CheckProto is Check for the JSON form of a protobuf message (ProtoJSON,
// as OTLP/JSON uses it), where readers accept a field under its JSON name
// and its proto name ("traceId", "trace_id") and keep the last of the
// members of a oneof: it also refuses an object naming one field twice
// (names equal once underscores are removed, under case folding) or two
// members of one of oneofs (each a list of the JSON names of one oneof's
// fields), for a reader that takes the first would read another message.
// It is for messages none of whose distinct fields have names equal
// without underscores.
func CheckProto(data []byte, oneofs ...[]string) error {
	field := func(name string) string { return fold(strings.ReplaceAll(name, "_", "")) }
	class := map[string]string{}
	for i, o := range oneofs {
		for _, name := range o {
			class[field(name)] = fmt.Sprintf("oneof %d", i)
		}
	}
	return check(data, func(name string) string {
		f := field(name)
		if c, ok := class[f]; ok {
			return c
		}
		return f
	})
}

// check is Check refusing two names of one object whose keys are equal.
func check(data []byte, key func(string) string) error {
	// From a bytes.Buffer the decoder reads data in place, with no copy.
	d := jsontext.NewDecoder(bytes.NewBuffer(data), jsontext.AllowDuplicateNames(true))
	// names[i] holds the folded names seen in the object open at depth i+1;
	// the maps are reused for sibling objects.
	var names []map[string]string
	for {
		tok, err := d.ReadToken()
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		depth := d.StackDepth()
		switch tok.Kind() {
		case '{':
			for len(names) < depth {
				names = append(names, make(map[string]string))
			}
			clear(names[depth-1])
		case '"':
			if kind, length := d.StackIndex(depth); kind != '{' || length%2 == 0 {
				break // a string value, not a member name
			}
			name := tok.String()
			seen := names[depth-1]
			k := key(name)
			if first, dup := seen[k]; dup {
				return &Error{Pointer: string(d.StackPointer().Parent()), First: first, Second: name}
			}
			seen[k] = name
		}
		if depth == 0 {
			break
		}
	}
	switch _, err := d.ReadToken(); err {
	case io.EOF:
		return nil
	case nil:
		return ErrTrailingData
	default:
		return err
	}
}

// ErrTrailingData reports a document holding a second JSON value after the
// first.
var ErrTrailingData = errors.New("strictjson: data after the top-level value")

// Unmarshal decodes data into v after Check has accepted it. Object
// members that match no field of a struct are ignored.
func Unmarshal(data []byte, v any) error {
	if err := Check(data); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// UnmarshalKnown is Unmarshal refusing an object member that matches no
// field of the struct it is decoded into.
func UnmarshalKnown(data []byte, v any) error {
	if err := Check(data); err != nil {
		return err
	}
	return json.Unmarshal(data, v, json.RejectUnknownMembers(true))
}

// fold maps name to a representative of its class under Unicode simple case
// folding: two names are equal under strings.EqualFold exactly when their
// folds are equal. Each rune becomes the smallest rune of its folding orbit.
func fold(name string) string {
	ascii := true
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return foldASCII(name)
	}
	b := make([]byte, 0, len(name))
	for _, r := range name {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b = utf8.AppendRune(b, m)
	}
	return string(b)
}

// foldASCII is fold for an ASCII name: the smallest rune of a letter's orbit
// is its upper case ('K' < 'k' < U+212A, 'S' < 's' < U+017F).
func foldASCII(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; 'a' <= c && c <= 'z' {
			b := []byte(name)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'a' <= c && c <= 'z' {
					b[j] = c - 'a' + 'A'
				}
			}
			return string(b)
		}
	}
	return name
}

// TrimSpace removes JSON's whitespace (space, tab, LF, CR: RFC 8259) from
// both ends of data, and nothing else: bytes.TrimSpace also removes
// Unicode spaces (U+0085, U+00A0), which make a document invalid for
// every JSON reader.
func TrimSpace(data []byte) []byte { return bytes.Trim(data, " \t\n\r") }
