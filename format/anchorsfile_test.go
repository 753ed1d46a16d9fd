package format

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readAnchorsFile(t *testing.T, body string) ([]Anchor, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "anchors.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return ReadAnchorsFile(path)
}

func TestAnchorsFileRules(t *testing.T) {
	h := func(b byte) string {
		return `"0x` + strings.Repeat(string("0123456789abcdef"[b>>4])+string("0123456789abcdef"[b&15]), 32) + `"`
	}
	entry := func(epoch, root, prev string) string {
		return `{"epoch":` + epoch + `,"root":` + root + `,"prev_root":` + prev + `}`
	}
	good := `{"anchors":[` + entry("1", h(2), h(1)) + `,{"epoch":0,"root":` + h(1) + `,"prev_root":` + h(0) + `,"source":"tx 0xab"}]}`
	as, err := readAnchorsFile(t, good)
	if err != nil || len(as) != 2 || as[0].Epoch != 1 || as[1].Source != "tx 0xab" {
		t.Fatalf("valid file: %v %+v", err, as)
	}
	if as, err := readAnchorsFile(t, `{"anchors":[]}`); err != nil || len(as) != 0 {
		t.Fatalf("empty list: %v %+v", err, as)
	}
	for name, body := range map[string]string{
		"unknown-field":    `{"anchors":[{"epoch":0,"root":` + h(1) + `,"prev_root":` + h(0) + `,"chain":1}]}`,
		"unknown-top":      `{"anchors":[],"version":2}`,
		"no-anchors-key":   `{}`,
		"missing-epoch":    `{"anchors":[{"root":` + h(1) + `,"prev_root":` + h(0) + `}]}`,
		"missing-root":     `{"anchors":[{"epoch":0,"prev_root":` + h(0) + `}]}`,
		"missing-prev":     `{"anchors":[{"epoch":0,"root":` + h(1) + `}]}`,
		"short-root":       `{"anchors":[` + entry("0", `"0x12"`, h(0)) + `]}`,
		"negative-epoch":   `{"anchors":[` + entry("-1", h(1), h(0)) + `]}`,
		"trailing-data":    `{"anchors":[]} {}`,
		"not-json":         `anchors`,
		"null-anchor":      `{"anchors":[null]}`,
		"null-root":        `{"anchors":[` + entry("0", `null`, h(0)) + `]}`,
		"fractional-epoch": `{"anchors":[` + entry("0.5", h(1), h(0)) + `]}`,
	} {
		if _, err := readAnchorsFile(t, body); !errors.Is(err, ErrAnchorsFile) {
			t.Errorf("%s: %v, want ErrAnchorsFile", name, err)
		}
		if _, err := ParseAnchors([]byte(body)); !errors.Is(err, ErrAnchorsFile) || !strings.Contains(err.Error(), `"Anchors file"`) {
			t.Errorf("%s: ParseAnchors: %v, want ErrAnchorsFile with the hint", name, err)
		}
	}
}

// WriteAnchorsFile writes what ReadAnchorsFile reads back.
func TestAnchorsFileRoundTrip(t *testing.T) {
	as := []Anchor{{Epoch: 0, Root: Digest{1}}, {Epoch: 1, Root: Digest{2}, PrevRoot: Digest{1}, Source: "tx 0xab"}}
	path := filepath.Join(t.TempDir(), "anchors.json")
	if err := WriteAnchorsFile(path, as); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAnchorsFile(path)
	if err != nil || !reflect.DeepEqual(got, as) {
		t.Fatalf("read back %+v (%v), want %+v", got, err, as)
	}
	if _, err := ReadAnchorsFile(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrAnchorsFile) {
		t.Fatalf("missing file: %v, want os.ErrNotExist and not ErrAnchorsFile", err)
	}
}

// FuzzParseAnchors: content ParseAnchors accepts marshals to content it
// reads back as the same anchors.
func FuzzParseAnchors(f *testing.F) {
	b, _ := MarshalAnchors([]Anchor{{Epoch: 0, Root: Digest{1}}, {Epoch: 1, Root: Digest{2}, PrevRoot: Digest{1}, Source: "tx"}})
	f.Add(b)
	f.Add([]byte(`{"anchors":[]}`))
	f.Add([]byte(`{"anchors":[null]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		as, err := ParseAnchors(b)
		if err != nil {
			return
		}
		again, err := MarshalAnchors(as)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseAnchors(again)
		if err != nil || len(back) != len(as) || (len(as) > 0 && !reflect.DeepEqual(back, as)) {
			t.Fatalf("%s read back as %+v (%v), want %+v", again, back, err, as)
		}
	})
}

// An anchors file is read as every reader reads it (docs/SPEC.md, "Reading
// JSON"): a name given twice, or in two spellings equal under case folding,
// is refused, and names match exactly. Before, the last "anchors" won and
// "Anchors" was read as "anchors".
func TestAnchorsFileRefusesEqualNames(t *testing.T) {
	entry := `{"epoch":0,"root":"0x` + strings.Repeat("11", 32) + `","prev_root":"0x` + strings.Repeat("00", 32) + `"}`
	for name, body := range map[string]string{
		"duplicate-anchors":   `{"anchors":[],"anchors":[` + entry + `]}`,
		"case-folded-anchors": `{"anchors":[],"ANCHORS":[` + entry + `]}`,
		"duplicate-epoch":     `{"anchors":[{"epoch":0,"epoch":1,` + entry[len(`{"epoch":0,`):] + `]}`,
		"long-s":              `{"anchors":[` + strings.TrimSuffix(entry, "}") + `,"source":"a","\u017fource":"b"}]}`,
		"upper-case-name":     `{"Anchors":[` + entry + `]}`,
		"upper-case-field":    `{"anchors":[` + strings.Replace(entry, `"root"`, `"Root"`, 1) + `]}`,
	} {
		if as, err := ParseAnchors([]byte(body)); !errors.Is(err, ErrAnchorsFile) {
			t.Errorf("%s: read %+v (%v), want ErrAnchorsFile", name, as, err)
		}
	}
}
