package format

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// Anchor is one epoch root as committed on chain (or by any other party a
// verifier trusts), EpochAnchor.anchor(epoch, root, prevRoot), and one entry
// of an anchors file.
type Anchor struct {
	Epoch    uint64 `json:"epoch"`
	Root     Digest `json:"root"`
	PrevRoot Digest `json:"prev_root"`
	// Where the anchor came from, for reports (e.g. a transaction hash).
	Source string `json:"source,omitempty"`
}

// ErrAnchorsFile is wrapped by the errors of ReadAnchorsFile and
// ParseAnchors for content that is not a valid anchors file (unknown or
// missing fields, malformed digests, trailing data).
var ErrAnchorsFile = errors.New("format: malformed anchors file")

// anchorsFileHint ends the errors of a malformed anchors file.
const anchorsFileHint = `want {"anchors": [{"epoch": n, "root": "0x…", "prev_root": "0x…"}, …]}, see docs/SPEC.md "Anchors file"`

// ReadAnchorsFile reads an anchors file: a JSON object
// {"anchors": [{"epoch": 0, "root": "0x…", "prev_root": "0x…"}, …]}
// (docs/SPEC.md, "Anchors file"). A file that breaks the format's rules is
// an error wrapping ErrAnchorsFile; one that cannot be read is the error of
// os.ReadFile.
func ReadAnchorsFile(path string) ([]Anchor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	as, err := parseAnchors(b)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w (%s)", ErrAnchorsFile, path, err, anchorsFileHint)
	}
	return as, nil
}

// ParseAnchors reads the content of an anchors file (see ReadAnchorsFile),
// for anchors that do not come from a file, such as those a web page is
// given. Content that breaks the format's rules is an error wrapping
// ErrAnchorsFile.
func ParseAnchors(b []byte) ([]Anchor, error) {
	as, err := parseAnchors(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %w (%s)", ErrAnchorsFile, err, anchorsFileHint)
	}
	return as, nil
}

func parseAnchors(b []byte) ([]Anchor, error) {
	var doc struct {
		Anchors *[]*struct {
			Epoch    *uint64 `json:"epoch"`
			Root     *Digest `json:"root"`
			PrevRoot *Digest `json:"prev_root"`
			Source   string  `json:"source"`
		} `json:"anchors"`
	}
	if err := decodeJSONObject(b, &doc); err != nil {
		return nil, err
	}
	if doc.Anchors == nil {
		return nil, errors.New("no \"anchors\" list")
	}
	out := make([]Anchor, len(*doc.Anchors))
	for i, a := range *doc.Anchors {
		if a == nil || a.Epoch == nil || a.Root == nil || a.PrevRoot == nil {
			return nil, fmt.Errorf("anchor %d: epoch, root and prev_root are required", i)
		}
		out[i] = Anchor{Epoch: *a.Epoch, Root: *a.Root, PrevRoot: *a.PrevRoot, Source: a.Source}
	}
	return out, nil
}

// MarshalAnchors returns anchors as the content of an anchors file:
// indented JSON ending in a newline.
func MarshalAnchors(anchors []Anchor) ([]byte, error) {
	b, err := json.MarshalIndent(struct {
		Anchors []Anchor `json:"anchors"`
	}{anchors}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteAnchorsFile writes anchors to path in the format ReadAnchorsFile
// reads (MarshalAnchors).
func WriteAnchorsFile(path string, anchors []Anchor) error {
	b, err := MarshalAnchors(anchors)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// decodeJSONObject decodes b, which must hold exactly one JSON value, into
// v as docs/SPEC.md "Reading JSON" says, refusing fields v does not have:
// how the anchors file and each line of the batches file are read.
func decodeJSONObject(b []byte, v any) error {
	return strictjson.UnmarshalKnown(b, v)
}
