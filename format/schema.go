package format

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// jsonFields returns the JSON names of struct type t's fields, in
// declaration order, and their types.
func jsonFields(t reflect.Type) ([]string, map[string]reflect.Type) {
	var names []string
	types := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		names = append(names, name)
		types[name] = f.Type
	}
	return names, types
}

// unknownField names a field that the struct at path does not have, and
// the fields it does.
func unknownField(path string, known []string) error {
	return fmt.Errorf("%s: unknown field (want one of %s)", path, strings.Join(known, ", "))
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// isText reports whether values of t are JSON strings read by
// UnmarshalText (enumerations, byte strings, digests).
func isText(t reflect.Type) bool { return reflect.PointerTo(t).Implements(textUnmarshaler) }

// isFree reports whether t holds free-form values (intent.args, ext).
func isFree(t reflect.Type) bool {
	return t.Kind() == reflect.Interface || t.Kind() == reflect.Map && t.Elem().Kind() == reflect.Interface
}

// join appends name to a dotted path.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// CheckPayloadPath checks a dotted path into the payload's JSON form, as
// queries name fields: "intent.args.cmd", "effects.0.file_write.path". A
// list element is named by its index or by * (any element); inside
// free-form values (intent.args, ext) any name is allowed, * included. The
// error names the first part that the payload cannot have and the fields
// known at that level.
func CheckPayloadPath(path string) error {
	if path == "" {
		return fmt.Errorf("empty field path")
	}
	t := reflect.TypeFor[Payload]()
	done := ""
	for _, part := range strings.Split(path, ".") {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		here := join(done, part)
		switch {
		case part == "":
			return fmt.Errorf("%q: empty part in the field path", path)
		case isFree(t):
			return nil
		case isText(t) || t.Kind() != reflect.Struct && t.Kind() != reflect.Slice:
			return fmt.Errorf("%s: %s is %s, it has no fields", here, done, a(describeType(t)))
		case t.Kind() == reflect.Slice:
			if _, err := strconv.ParseUint(part, 10, 31); err != nil && part != "*" {
				return fmt.Errorf("%s: %s is a list: name an element by its index (0, 1, …) or * (any element)", here, done)
			}
			t = t.Elem()
		default:
			names, types := jsonFields(t)
			ft, ok := types[part]
			if !ok {
				return unknownField(here, names)
			}
			t = ft
		}
		done = here
	}
	return nil
}

// describeType names what JSON value a Go type is read from.
func describeType(t reflect.Type) string {
	switch {
	case isText(t):
		return "string"
	case isFree(t):
		return "any JSON value"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return describeType(t.Elem())
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "unsigned integer"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "integer"
	case reflect.Slice:
		return "list"
	}
	return "object"
}

// a prefixes a noun with its indefinite article.
func a(noun string) string {
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// describeValue names a decoded JSON value, for "want X, got Y".
func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("the string %q", x)
	case json.Number:
		return "the number " + x.String()
	case bool:
		return fmt.Sprintf("%v", x)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "null"
}

// checkJSON checks a JSON value (decoded with UseNumber) against the Go
// type it will be read into, naming the path of the first problem: an
// unknown field, a value of the wrong type, an integer out of range or a
// string its type refuses (an unknown kind, bad hex).
func checkJSON(path string, v any, t reflect.Type) error {
	if v == nil || isFree(t) {
		return nil // null leaves the zero value, as encoding/json does
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	want := func() error {
		return fmt.Errorf("%s: want %s, got %s", path, a(describeType(t)), describeValue(v))
	}
	if isText(t) {
		s, ok := v.(string)
		if !ok {
			return want()
		}
		if err := reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		if _, ok := v.(string); !ok {
			return want()
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return want()
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(json.Number)
		if !ok {
			return want()
		}
		if _, err := strconv.ParseUint(n.String(), 10, t.Bits()); err != nil {
			return fmt.Errorf("%s: want an unsigned integer of at most %d bits, got %s", path, t.Bits(), n)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			return want()
		}
		if _, err := strconv.ParseInt(n.String(), 10, t.Bits()); err != nil {
			return fmt.Errorf("%s: want an integer of at most %d bits, got %s", path, t.Bits(), n)
		}
	case reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			return want()
		}
		for i, x := range l {
			if err := checkJSON(join(path, strconv.Itoa(i)), x, t.Elem()); err != nil {
				return err
			}
		}
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return want()
		}
		names, types := jsonFields(t)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ft, ok := types[k]
			if !ok {
				return unknownField(join(path, k), names)
			}
			if err := checkJSON(join(path, k), m[k], ft); err != nil {
				return err
			}
		}
	}
	return nil
}
