package cachefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type file struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	ChainID uint64 `json:"chain_id"`
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		desc, data, err string
	}{
		{"valid", `{"format":"f","version":1,"chain_id":1}`, ""},
		{"trailing white space", "{\"format\":\"f\"}\n\t ", ""},
		{"unknown field", `{"format":"f","extra":1}`, `decode: json: unknown field "extra"`},
		{"trailing data", `{"format":"f"} {}`, "trailing data after the test object"},
		{"trailing garbage", `{"format":"f"}x`, "trailing data after the test object"},
		{"not an object", `[1]`, "decode: "},
		{"empty", ``, "decode: EOF"},
	} {
		var f file
		err := Decode([]byte(tc.data), &f, "test")
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.desc, err)
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.desc, err, tc.err)
		}
	}
}

func TestFormatCheck(t *testing.T) {
	k := Format{Name: "f", Version: 1}
	for _, tc := range []struct {
		desc    string
		h       file
		wantErr string
	}{
		{"valid", file{"f", 1, 5}, ""},
		{"other format", file{"g", 1, 5}, `format is "g", want "f"`},
		{"other version", file{"f", 2, 5}, "version 2 is not supported (want 1)"},
		{"zero chain id", file{"f", 1, 0}, "chain_id is missing or zero"},
	} {
		err := k.Check(tc.h.Format, tc.h.Version, tc.h.ChainID)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.wantErr {
			t.Errorf("%s: error %q, want %q", tc.desc, got, tc.wantErr)
		}
	}
}

func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "f.json")
	if err := Write(path, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("{\"x\":1}\n")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "{\"x\":1}\n" {
		t.Errorf("file holds %q", data)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm != 0o600 {
		t.Errorf("mode %v, want 0600", perm)
	}
}
