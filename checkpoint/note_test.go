package checkpoint_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
)

// A checkpoint signed by the operator and cosigned by witnesses (Ed25519
// and ML-DSA-44 cosignature/v1, signed by transparency-dev/formats)
// verifies under N-of-M policies up to the number of cosigners, and names
// them with their timestamps.
func TestVerifyPolicy(t *testing.T) {
	op := newKey(t, 1, "example.com/operator")
	w1, w2, w3 := newKey(t, 2, "w1.example"), newKey(t, 3, "w2.example"), newKey(t, 4, "w3.example")
	mlSkey, mlVkey, err := fnote.GenerateMLDSAKey("pq.example")
	if err != nil {
		t.Fatal(err)
	}
	ml, err := fnote.NewMLDSASigner(mlSkey)
	if err != nil {
		t.Fatal(err)
	}
	id := format.LogID("rec", format.SessionID{7})
	origin, err := checkpoint.Origin("", id)
	if err != nil {
		t.Fatal(err)
	}
	leaves := digests(5, 9)
	cp, err := checkpoint.Sign(origin, leaves, op.signer)
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Second)
	cosigned := cosign(t, cp, witnessSigner(t, w1), ml)

	vkeys := []string{w1.vkey, w2.vkey, w3.vkey, mlVkey}
	for min := 0; min <= 2; min++ {
		p, err := checkpoint.NewPolicy(op.vkey, vkeys, min)
		if err != nil {
			t.Fatal(err)
		}
		c, err := checkpoint.Verify(cosigned, p, id)
		if err != nil {
			t.Fatalf("2 cosignatures, policy %d of 4: %v", min, err)
		}
		if c.Origin != origin || c.LogID != id || c.Size != 5 || c.Root != checkpoint.Root(leaves) {
			t.Fatalf("checkpoint read as %+v", c)
		}
		if len(c.Cosignatures) != 2 || c.Cosignatures[0].Witness != "w1.example" || c.Cosignatures[1].Witness != "pq.example" {
			t.Fatalf("cosignatures %+v, want w1.example and pq.example", c.Cosignatures)
		}
		if ts := c.Cosignatures[0].Time; ts.Before(before.Truncate(time.Second)) || ts.After(time.Now()) {
			t.Fatalf("cosignature time %s is not now", ts)
		}
	}
	p, err := checkpoint.NewPolicy(op.vkey, vkeys, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkpoint.Verify(cosigned, p, id); !errors.Is(err, checkpoint.ErrPolicy) || !strings.Contains(err.Error(), "cosigned by 2 of the 4") {
		t.Fatalf("2 cosignatures, policy 3 of 4: %v, want ErrPolicy naming the count", err)
	}
	// The operator's signature alone satisfies a policy of no witnesses.
	if _, err := checkpoint.Verify(cp, policy(t, op, 0), id); err != nil {
		t.Fatal(err)
	}
}

// Policies that cannot be met or repeat a key are refused when built.
func TestNewPolicyRefuses(t *testing.T) {
	op, w := newKey(t, 1, "op"), newKey(t, 2, "w")
	for name, c := range map[string]struct {
		op  string
		ws  []string
		min int
	}{
		"more than given":   {op.vkey, []string{w.vkey}, 2},
		"negative":          {op.vkey, nil, -1},
		"witness twice":     {op.vkey, []string{w.vkey, w.vkey}, 1},
		"bad operator key":  {"op+00000000+AAAA", nil, 0},
		"bad witness key":   {op.vkey, []string{"garbage"}, 0},
		"signer as witness": {op.vkey, []string{w.skey}, 0},
	} {
		if _, err := checkpoint.NewPolicy(c.op, c.ws, c.min); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Every damaged checkpoint is refused with the error of its kind.
func TestVerifyDamaged(t *testing.T) {
	op, w, stranger := newKey(t, 1, "example.com/operator"), newKey(t, 2, "w1.example"), newKey(t, 5, "example.com/operator")
	id := format.LogID("rec", format.SessionID{7})
	origin, _ := checkpoint.Origin("", id)
	leaves := digests(5, 9)
	good, err := checkpoint.Sign(origin, leaves, op.signer)
	if err != nil {
		t.Fatal(err)
	}
	cosigned := cosign(t, good, witnessSigner(t, w))
	p := policy(t, op, 1, w)
	if _, err := checkpoint.Verify(cosigned, p, id); err != nil {
		t.Fatal(err)
	}
	// signText signs arbitrary text with the operator key, cosigned.
	signText := func(text string) []byte {
		t.Helper()
		return cosign(t, signedOnlyBy(t, []byte(text), op), witnessSigner(t, w))
	}
	r := checkpoint.Root(leaves)
	root := base64.StdEncoding.EncodeToString(r[:])
	otherID := format.LogID("rec", format.SessionID{8})
	otherOrigin, _ := checkpoint.Origin("", otherID)
	otherLog, err := checkpoint.Sign(otherOrigin, leaves, op.signer)
	if err != nil {
		t.Fatal(err)
	}
	text, sigs := splitNote(t, cosigned)
	_, wLine, _ := strings.Cut(string(sigs), "\n")
	for _, c := range []struct {
		name string
		raw  []byte
		want error
	}{
		{"empty", nil, checkpoint.ErrMalformed},
		{"garbage", []byte("\x00\x01garbage\xff"), checkpoint.ErrMalformed},
		{"text without signatures", text, checkpoint.ErrMalformed},
		{"control character", append([]byte("\x07"), cosigned...), checkpoint.ErrMalformed},
		{"too large", append(bytes.Repeat([]byte("x"), checkpoint.MaxNoteBytes), cosigned...), checkpoint.ErrMalformed},
		{"signed by an unknown key", signedOnlyBy(t, text, newKey(t, 6, "example.com/someone")), checkpoint.ErrSignature},
		{"signed by another key of the operator's name", signedOnlyBy(t, text, stranger), checkpoint.ErrSignature},
		{"only the witness signed", []byte(string(text) + "\n" + wLine), checkpoint.ErrSignature},
		{"operator signature flipped", badSig(t, cosigned, 0), checkpoint.ErrSignature},
		{"witness signature flipped", badSig(t, cosigned, 1), checkpoint.ErrSignature},
		{"size changed after signing", bytes.Replace(cosigned, []byte("\n5\n"), []byte("\n6\n"), 1), checkpoint.ErrSignature},
		{"no witness", good, checkpoint.ErrPolicy},
		{"another log's checkpoint", cosign(t, otherLog, witnessSigner(t, w)), checkpoint.ErrForeignLog},
		{"origin without log id", signText("afr.log/operator\n5\n" + root + "\n"), checkpoint.ErrMalformed},
		{"origin with uppercase log id", signText("afr.log/" + strings.ToUpper(origin[len("afr.log/"):]) + "\n5\n" + root + "\n"), checkpoint.ErrMalformed},
		{"extension line", signText(origin + "\n5\n" + root + "\nextra\n"), checkpoint.ErrMalformed},
		{"size with leading zero", signText(origin + "\n05\n" + root + "\n"), checkpoint.ErrMalformed},
		{"size not a number", signText(origin + "\nfive\n" + root + "\n"), checkpoint.ErrMalformed},
		{"root of 31 bytes", signText(origin + "\n5\n" + base64.StdEncoding.EncodeToString(make([]byte, 31)) + "\n"), checkpoint.ErrMalformed},
		{"root not base64", signText(origin + "\n5\n!!!!\n"), checkpoint.ErrMalformed},
		{"two lines", signText(origin + "\n5\n"), checkpoint.ErrMalformed},
	} {
		_, err := checkpoint.Verify(c.raw, p, id)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// signedOnlyBy returns text signed by k alone.
func signedOnlyBy(t testing.TB, text []byte, k key) []byte {
	t.Helper()
	n, err := note.Sign(&note.Note{Text: string(text)}, k.signer)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// badSig returns n with one bit of the signature on signature line i
// flipped (past the key hash).
func badSig(t testing.TB, n []byte, i int) []byte {
	t.Helper()
	text, sigs := splitNote(t, n)
	lines := strings.Split(strings.TrimSuffix(string(sigs), "\n"), "\n")
	prefix, b64, _ := strings.Cut(lines[i][len("— "):], " ")
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-1] ^= 1
	lines[i] = "— " + prefix + " " + base64.StdEncoding.EncodeToString(raw)
	return []byte(string(text) + "\n" + strings.Join(lines, "\n") + "\n")
}
