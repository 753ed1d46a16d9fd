package checkpoint_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
)

var update = flag.Bool("update", false, "rewrite fixtures/vectors/checkpoint")

const vectorDir = "../fixtures/vectors/checkpoint"

// vector is one file of fixtures/vectors/checkpoint: a case of one of
// three types, with its expected outcome. Error names the kind of failure
// an invalid case must give (AFR's error in parentheses): "malformed"
// (ErrMalformed), "signature" (ErrSignature), "policy" (ErrPolicy),
// "foreign_log" (ErrForeignLog), "leaves" (ErrLeaves), "inconsistent"
// (ErrInconsistent) or "proof" (a malformed consistency proof).
type vector struct {
	Desc  string `json:"desc"`
	Type  string `json:"type"` // checkpoint, consistency, request
	Valid bool   `json:"valid"`
	Error string `json:"error,omitempty"`

	// checkpoint: Note verified under the policy (OperatorVKey, WitnessVKeys,
	// MinWitnesses, always present: the CLI's default of every witness
	// does not apply) for the log LogID; with Leaves (an anchors file), the
	// leaves are checked against it too. Valid ones read as Size and Root.
	Note         string          `json:"note,omitempty"`
	OperatorVKey string          `json:"operator_vkey,omitempty"`
	WitnessVKeys []string        `json:"witness_vkeys,omitempty"`
	MinWitnesses *int            `json:"min_witnesses,omitempty"`
	LogID        *format.Digest  `json:"log_id,omitempty"`
	Leaves       []format.Anchor `json:"leaves,omitempty"`
	Size         uint64          `json:"size,omitempty"`
	Root         *format.Digest  `json:"root,omitempty"`

	// consistency: Proof from (OldSize, OldRoot) to (NewSize, NewRoot).
	OldSize uint64          `json:"old_size,omitempty"`
	NewSize uint64          `json:"new_size,omitempty"`
	OldRoot *format.Digest  `json:"old_root,omitempty"`
	NewRoot *format.Digest  `json:"new_root,omitempty"`
	Proof   []format.Digest `json:"proof,omitempty"`

	// request: an add-checkpoint Body; a valid one parses to OldSize,
	// Proof and its checkpoint Note.
	Body string `json:"body,omitempty"`
}

var errorNames = map[string]error{
	"malformed":    checkpoint.ErrMalformed,
	"signature":    checkpoint.ErrSignature,
	"policy":       checkpoint.ErrPolicy,
	"foreign_log":  checkpoint.ErrForeignLog,
	"leaves":       checkpoint.ErrLeaves,
	"inconsistent": checkpoint.ErrInconsistent,
}

// makeVectors builds the vectors from fixed keys, a fixed cosignature time
// and synthetic epoch roots.
func makeVectors(t *testing.T) map[string]vector {
	op := newKey(t, 1, "example.com/operator")
	w1, w1vkey := newFixedTimeCosigner(t, 2, "witness1.example", 1767225600)
	w2, w2vkey := newFixedTimeCosigner(t, 3, "witness2.example", 1767225660)
	id := format.LogID("vectors", format.SessionID{1})
	otherID := format.LogID("vectors", format.SessionID{2})
	origin, _ := checkpoint.Origin("", id)
	otherOrigin, _ := checkpoint.Origin("", otherID)
	roots := digests(7, 7)
	var leaves []format.Anchor
	var prev format.Digest
	for i, r := range roots {
		leaves = append(leaves, format.Anchor{Epoch: uint64(i), Root: r, PrevRoot: prev})
		prev = r
	}
	root := checkpoint.Root(roots)
	sign := func(text string, signers ...note.Signer) string {
		n, err := note.Sign(&note.Note{Text: text}, signers...)
		if err != nil {
			t.Fatal(err)
		}
		return string(n)
	}
	body := string(checkpoint.Body(origin, 7, root))
	cosigned := sign(body, op.signer, w1, w2)
	cp := func(desc, n string, min int, valid bool, errName string) vector {
		v := vector{Desc: desc, Type: "checkpoint", Note: n, OperatorVKey: op.vkey, WitnessVKeys: []string{w1vkey, w2vkey},
			MinWitnesses: &min, LogID: &id, Valid: valid, Error: errName}
		if valid {
			v.Size, v.Root = 7, &root
		}
		return v
	}
	withLeaves := func(v vector, l []format.Anchor) vector { v.Leaves = l; return v }
	badLeaves := append([]format.Anchor(nil), leaves...)
	badLeaves[6].Root[0] ^= 1
	noteT, _ := splitNote(t, []byte(cosigned))
	vs := map[string]vector{
		"checkpoint-operator-only": cp("a checkpoint of 7 epochs signed by the operator; the policy needs no witness", sign(body, op.signer), 0, true, ""),
		"checkpoint-cosigned":      cp("the same, cosigned by two witnesses (cosignature/v1, Ed25519); the policy needs 2 of 2", cosigned, 2, true, ""),
		"checkpoint-cosigned-leaves": withLeaves(cp("the cosigned checkpoint with its published leaves, the epoch roots R_0…R_6 as an anchors file",
			cosigned, 2, true, ""), leaves),
	}
	stranger := newKey(t, 9, "stranger.example")
	vs["checkpoint-unknown-signature-ignored"] = cp("a signature by a key the policy does not name is ignored", sign(body, op.signer, w1, w2, stranger.signer), 2, true, "")
	for name, v := range map[string]vector{
		"checkpoint-too-few-witnesses":     cp("cosigned by 1 witness; the policy needs 2", sign(body, op.signer, w1), 2, false, "policy"),
		"checkpoint-no-operator-signature": cp("cosigned by both witnesses but not signed by the operator", sign(body, w1, w2), 2, false, "signature"),
		"checkpoint-bad-operator-signature": cp("the operator's signature has one bit flipped",
			string(badSig(t, []byte(cosigned), 0)), 2, false, "signature"),
		"checkpoint-bad-witness-signature": cp("a witness's cosignature has one bit flipped (a known key's signature must verify)",
			string(badSig(t, []byte(cosigned), 2)), 1, false, "signature"),
		"checkpoint-size-changed": cp("the size line changed after signing",
			strings.Replace(cosigned, "\n7\n", "\n8\n", 1), 2, false, "signature"),
		"checkpoint-other-log": cp("a valid checkpoint of another log of the same operator",
			sign(string(checkpoint.Body(otherOrigin, 7, root)), op.signer, w1, w2), 2, false, "foreign_log"),
		"checkpoint-extension-line": cp("an extension line after the root (AFR checkpoints have none)",
			sign(body+"extension\n", op.signer, w1, w2), 2, false, "malformed"),
		"checkpoint-size-leading-zero": cp("the size written 07",
			sign(strings.Replace(body, "\n7\n", "\n07\n", 1), op.signer, w1, w2), 2, false, "malformed"),
		"checkpoint-origin-without-log-id": cp("an origin that names no log id",
			sign(strings.Replace(body, origin, "afr.log/operator", 1), op.signer, w1, w2), 2, false, "malformed"),
		"checkpoint-short-root": cp("a root hash of 31 bytes",
			sign(origin+"\n7\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==\n", op.signer, w1, w2), 2, false, "malformed"),
		"checkpoint-unsigned-text":   cp("the checkpoint text with no signature block", string(noteT), 0, false, "malformed"),
		"checkpoint-garbage":         cp("bytes that are not a note", "\x00garbage {not a note}\x01", 0, false, "malformed"),
		"checkpoint-leaves-mismatch": withLeaves(cp("leaves whose last root was changed: they do not hash to the checkpoint's root", cosigned, 2, false, "leaves"), badLeaves),
		"checkpoint-leaves-count":    withLeaves(cp("6 leaves for a checkpoint of size 7", cosigned, 2, false, "leaves"), leaves[:6]),
	} {
		vs[name] = v
	}

	forkRoots := append([]format.Digest(nil), roots...)
	forkRoots[1][0] ^= 1
	cons := func(desc string, leaves []format.Digest, old, n int, proof []format.Digest, valid bool, errName string) vector {
		o, r := checkpoint.Root(leaves[:old]), checkpoint.Root(roots[:n])
		return vector{Desc: desc, Type: "consistency", OldSize: uint64(old), NewSize: uint64(n), OldRoot: &o, NewRoot: &r, Proof: proof, Valid: valid, Error: errName}
	}
	proof := func(old, n int) []format.Digest {
		p, err := checkpoint.ConsistencyProof(roots[:n], uint64(old))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	flipped := proof(3, 7)
	flipped[1][5] ^= 1
	vs["consistency-3-7"] = cons("RFC 6962 consistency proof from size 3 to 7 of the epoch-root tree", roots, 3, 7, proof(3, 7), true, "")
	vs["consistency-4-7"] = cons("from a power of two: the old root is not in the proof", roots, 4, 7, proof(4, 7), true, "")
	vs["consistency-7-7"] = cons("equal sizes: empty proof, equal roots", roots, 7, 7, nil, true, "")
	vs["consistency-0-7"] = cons("from the empty tree: empty proof", roots, 0, 7, nil, true, "")
	vs["consistency-fork"] = cons("the old head is of a tree whose epoch 1 differs: a fork", forkRoots, 3, 7, proof(3, 7), false, "inconsistent")
	vs["consistency-bad-hash"] = cons("one proof hash changed", roots, 3, 7, flipped, false, "inconsistent")
	vs["consistency-short"] = cons("a proof missing its last hash", roots, 3, 7, proof(3, 7)[:2], false, "proof")

	req := func(desc string, b string, valid bool, old uint64, p []format.Digest) vector {
		v := vector{Desc: desc, Type: "request", Body: b, Valid: valid, OldSize: old, Proof: p}
		if valid {
			v.Note = cosigned
		} else {
			v.Error = "malformed"
		}
		return v
	}
	reqBody := func(old int) string {
		r, err := checkpoint.NewRequest([]byte(cosigned), roots, uint64(old))
		if err != nil {
			t.Fatal(err)
		}
		return string(r.Marshal())
	}
	grow := reqBody(3)
	vs["request-first-contact"] = req("add-checkpoint for a witness that never saw the log: old 0, no proof", reqBody(0), true, 0, nil)
	vs["request-growth"] = req("add-checkpoint from size 3: the proof of consistency-3-7", grow, true, 3, proof(3, 7))
	vs["request-no-blank-line"] = req("no empty line between the proof and the checkpoint", strings.Replace(grow, "\n\n", "\n", 1), false, 0, nil)
	vs["request-old-leading-zero"] = req("old size written 03", strings.Replace(grow, "old 3\n", "old 03\n", 1), false, 0, nil)
	vs["request-bad-proof-line"] = req("a proof line that is not base64 of 32 bytes", strings.Replace(grow, "old 3\n", "old 3\nAAAA\n", 1), false, 0, nil)
	vs["request-64-proof-lines"] = req("64 proof lines, one more than a request may carry",
		"old 3\n"+strings.Repeat("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n", 64)+"\n"+cosigned, false, 0, nil)
	return vs
}

func checkVector(t *testing.T, name string, v vector) {
	t.Helper()
	wantErr := errorNames[v.Error]
	if !v.Valid && wantErr == nil && v.Error != "proof" {
		t.Fatalf("%s: unknown error name %q", name, v.Error)
	}
	var err error
	switch v.Type {
	case "checkpoint":
		if v.MinWitnesses == nil {
			t.Fatalf("%s: min_witnesses missing: a checkpoint vector names its threshold", name)
		}
		var p *checkpoint.Policy
		if p, err = checkpoint.NewPolicy(v.OperatorVKey, v.WitnessVKeys, *v.MinWitnesses); err != nil {
			t.Fatalf("%s: policy: %v", name, err)
		}
		var cp *checkpoint.Checkpoint
		if v.Leaves != nil {
			cp, _, err = checkpoint.Open(checkpoint.Published{Name: name, Note: []byte(v.Note), Leaves: v.Leaves}, p, *v.LogID)
		} else {
			cp, err = checkpoint.Verify([]byte(v.Note), p, *v.LogID)
		}
		if err == nil && (cp.Size != v.Size || cp.Root != *v.Root) {
			t.Fatalf("%s: read as size %d root %s, want %d %s", name, cp.Size, cp.Root, v.Size, v.Root)
		}
	case "consistency":
		err = checkpoint.VerifyConsistency(v.OldSize, v.NewSize, *v.OldRoot, *v.NewRoot, v.Proof)
		if v.Error == "proof" && (err == nil || errors.Is(err, checkpoint.ErrInconsistent)) {
			t.Fatalf("%s: %v, want a malformed-proof error", name, err)
		}
	case "request":
		var r *checkpoint.Request
		if r, err = checkpoint.ParseRequest([]byte(v.Body)); err == nil {
			if r.OldSize != v.OldSize || fmt.Sprint(r.Proof) != fmt.Sprint(v.Proof) || string(r.Checkpoint) != v.Note {
				t.Fatalf("%s: parsed as old %d, proof %v", name, r.OldSize, r.Proof)
			}
			if !bytes.Equal(r.Marshal(), []byte(v.Body)) {
				t.Fatalf("%s: does not marshal back to the body", name)
			}
		}
	default:
		t.Fatalf("%s: unknown type %q", name, v.Type)
	}
	switch {
	case v.Valid && err != nil:
		t.Errorf("%s (%s): %v", name, v.Desc, err)
	case !v.Valid && err == nil:
		t.Errorf("%s (%s): accepted", name, v.Desc)
	case !v.Valid && wantErr != nil && !errors.Is(err, wantErr):
		t.Errorf("%s (%s): %v, want %s", name, v.Desc, err, v.Error)
	}
}

// TestVectors checks every file of fixtures/vectors/checkpoint, and that
// they are the ones makeVectors builds (regenerate with
// go test ./checkpoint -run TestVectors -update).
func TestVectors(t *testing.T) {
	want := makeVectors(t)
	if *update {
		if err := os.RemoveAll(vectorDir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(vectorDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, v := range want {
			b, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(vectorDir, name+".json"), append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := readVectors(t)
	for name, v := range got {
		checkVector(t, name, v)
		w, ok := want[name]
		if !ok {
			t.Errorf("%s: not a vector makeVectors builds (regenerate with -update)", name)
			continue
		}
		a, _ := json.Marshal(v)
		b, _ := json.Marshal(w)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the file differs from what makeVectors builds (regenerate with -update)", name)
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("%s: missing from %s (regenerate with -update)", name, vectorDir)
		}
	}
}

func readVectors(t testing.TB) map[string]vector {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(vectorDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no vectors in %s: %v", vectorDir, err)
	}
	out := map[string]vector{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v vector
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = v
	}
	return out
}

// FuzzVerify: whatever the bytes, Verify returns a checkpoint or an error
// of one of its kinds, never panics; an accepted note starts with the
// canonical body of what it was read as. Seeded from the vectors.
func FuzzVerify(f *testing.F) {
	var v0 vector
	for _, v := range readVectors(f) {
		if v.Type == "checkpoint" {
			f.Add([]byte(v.Note))
			v0 = v
		}
	}
	p, err := checkpoint.NewPolicy(v0.OperatorVKey, v0.WitnessVKeys, 1)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		cp, err := checkpoint.Verify(raw, p, format.Digest{})
		if err != nil {
			for _, e := range []error{checkpoint.ErrMalformed, checkpoint.ErrSignature, checkpoint.ErrPolicy} {
				if errors.Is(err, e) {
					return
				}
			}
			t.Fatalf("error of no kind: %v", err)
		}
		if !bytes.HasPrefix(raw, checkpoint.Body(cp.Origin, cp.Size, cp.Root)) {
			t.Fatalf("accepted %q as %s %d %s", raw, cp.Origin, cp.Size, cp.Root)
		}
	})
}

// FuzzParseRequest: a request either fails to parse or marshals back to
// exactly its bytes (the framing is canonical). Seeded from the vectors.
func FuzzParseRequest(f *testing.F) {
	for _, v := range readVectors(f) {
		if v.Type == "request" {
			f.Add([]byte(v.Body))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := checkpoint.ParseRequest(body)
		if err != nil {
			return
		}
		if !bytes.Equal(r.Marshal(), body) {
			t.Fatalf("%q parsed and marshalled as %q", body, r.Marshal())
		}
	})
}
