package witnessinterop_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	fnote "github.com/transparency-dev/formats/note"
	"github.com/transparency-dev/witness/api"
	"github.com/transparency-dev/witness/persistence/inmemory"
	"github.com/transparency-dev/witness/witness"
	"golang.org/x/mod/sumdb/note"

	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// realWitness is transparency-dev/witness serving add-checkpoint on
// loopback, configured to follow one log origin under the operator's key.
type realWitness struct {
	*checkpoint.Witness
	vkey string
}

func startWitness(t *testing.T, signer note.Signer, vkey, origin, operatorVKey string) *realWitness {
	t.Helper()
	opV, err := fnote.NewVerifier(operatorVKey)
	if err != nil {
		t.Fatal(err)
	}
	w, err := witness.New(context.Background(), witness.Opts{
		Persistence: inmemory.New(),
		Signers:     []note.Signer{signer},
		VerifierForLog: func(_ context.Context, o string) (note.Verifier, bool, error) {
			return opV, o == origin, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+api.HTTPAddCheckpoint, witness.NewHTTPHandler(w).AddCheckpoint)
	srv := httptest.NewServer(mux) // 127.0.0.1
	t.Cleanup(srv.Close)
	v, err := fnote.NewVerifierForCosignatureV1(vkey)
	if err != nil {
		t.Fatal(err)
	}
	return &realWitness{&checkpoint.Witness{URL: srv.URL, Verifier: v, Client: srv.Client()}, vkey}
}

// ed25519Witness starts a witness with an Ed25519 cosignature/v1 key made
// by checkpoint.GenerateKey.
func ed25519Witness(t *testing.T, name, origin, opVKey string) *realWitness {
	t.Helper()
	skey, vkey, err := checkpoint.GenerateKey(nil, name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := fnote.NewSignerForCosignatureV1(skey)
	if err != nil {
		t.Fatal(err)
	}
	return startWitness(t, s, vkey, origin, opVKey)
}

// mldsaWitness starts a witness with an ML-DSA-44 key, as C2SP recommends
// for new witnesses.
func mldsaWitness(t *testing.T, name, origin, opVKey string) *realWitness {
	t.Helper()
	skey, vkey, err := fnote.GenerateMLDSAKey(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := fnote.NewMLDSASigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return startWitness(t, s, vkey, origin, opVKey)
}

type log struct {
	dir    string
	img    *tamper.Image
	leaves []format.Anchor
	id     format.Digest
}

func makeLog(t *testing.T, n, epochSize int, seed uint64) *log {
	t.Helper()
	l := logtest.Write(t, recorder.Options{Recorder: fmt.Sprintf("op-%d", seed), EpochSize: epochSize, Sync: recorder.SyncNone, EpochMaxAge: -1}, workload.Generate(seed, n))
	id, err := l.LogID()
	if err != nil {
		t.Fatal(err)
	}
	img, err := tamper.Load(l)
	if err != nil {
		t.Fatal(err)
	}
	leaves, err := checkpoint.Leaves(img)
	if err != nil {
		t.Fatal(err)
	}
	return &log{l.Dir, img, leaves, id}
}

// The whole life of a log's checkpoints with two real witnesses: first
// contact, growth with a consistency proof, a stale old size, and the
// verifier's N-of-M policy over their cosignatures; then the refusals a
// witness owes a fork, an unknown log and a forged signature.
func TestRealWitness(t *testing.T) {
	ctx := context.Background()
	lg := makeLog(t, 120, 10, 1)
	origin, err := checkpoint.Origin("example.com/afr", lg.id)
	if err != nil {
		t.Fatal(err)
	}
	opSkey, opVKey, err := checkpoint.GenerateKey(nil, "example.com/operator")
	if err != nil {
		t.Fatal(err)
	}
	op, err := note.NewSigner(opSkey)
	if err != nil {
		t.Fatal(err)
	}
	w1 := ed25519Witness(t, "w1.example", origin, opVKey)
	w2 := mldsaWitness(t, "w2.example", origin, opVKey)
	policy, err := checkpoint.NewPolicy(opVKey, []string{w1.vkey, w2.vkey}, 2)
	if err != nil {
		t.Fatal(err)
	}
	policy.OriginPrefix = "example.com/afr"
	roots := checkpoint.Roots(lg.leaves)
	signed := func(size int) []byte {
		cp, err := checkpoint.Sign(origin, roots[:size], op)
		if err != nil {
			t.Fatal(err)
		}
		return cp
	}

	// First contact (old size 0), then growth from 5 to 12 epochs: each
	// witness checks AFR's consistency proof and cosigns.
	var cosigned []byte
	for _, step := range []struct{ old, size int }{{0, 5}, {5, 12}} {
		cosigned = signed(step.size)
		for _, w := range []*realWitness{w1, w2} {
			if cosigned, err = w.AddCheckpoint(ctx, cosigned, roots[:step.size], uint64(step.old)); err != nil {
				t.Fatalf("%s, size %d from %d: %v", w.Verifier.Name(), step.size, step.old, err)
			}
		}
		cp, err := checkpoint.Verify(cosigned, policy, lg.id)
		if err != nil {
			t.Fatalf("size %d: %v", step.size, err)
		}
		if cp.Size != uint64(step.size) || len(cp.Cosignatures) != 2 {
			t.Fatalf("size %d: read as size %d with %d cosignatures", step.size, cp.Size, len(cp.Cosignatures))
		}
	}
	// The verifier accepts the cosigned checkpoint as the log's anchors.
	rep, err := verifier.VerifyLog(ctx, lg.img, checkpoint.Anchors{
		Checkpoints: []checkpoint.Published{{Name: "cp", Note: cosigned, Leaves: lg.leaves}},
		Policy:      policy, LogID: lg.id}, verifier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != verifier.Verified || rep.AnchoredEpochs != 12 {
		t.Fatalf("verdict %s, %d epochs anchored; findings %v", rep.Verdict, rep.AnchoredEpochs, rep.Findings)
	}

	// A stale old size: the witness answers 409 with its size, and Cosign
	// retries from there.
	var conflict *checkpoint.ConflictError
	if _, err := w1.AddCheckpoint(ctx, signed(12), roots[:12], 5); !errors.As(err, &conflict) || conflict.Size != 12 {
		t.Fatalf("stale old size: %v, want a conflict at 12", err)
	}
	if _, err := w1.Cosign(ctx, signed(12), roots[:12], 0); err != nil {
		t.Fatalf("Cosign after a conflict: %v", err)
	}

	// A fork: the operator signs a rewritten history of the same size, or
	// a longer one whose proof from 12 is computed from the forked leaves.
	forkImg := lg.img.Clone()
	if err := forkImg.Fork(45); err != nil { // rewrites epochs 4 … 11
		t.Fatal(err)
	}
	forkLeaves, err := checkpoint.Leaves(forkImg)
	if err != nil {
		t.Fatal(err)
	}
	forkRoots := checkpoint.Roots(forkLeaves)
	forked, err := checkpoint.Sign(origin, forkRoots, op)
	if err != nil {
		t.Fatal(err)
	}
	var status *checkpoint.StatusError
	for _, w := range []*realWitness{w1, w2} {
		if _, err := w.AddCheckpoint(ctx, forked, forkRoots, 12); !errors.As(err, &status) || status.Code != http.StatusUnprocessableEntity {
			t.Fatalf("%s, fork of size 12: %v, want 422", w.Verifier.Name(), err)
		}
	}

	// A log the witness does not follow: 404.
	other := makeLog(t, 30, 10, 2)
	otherOrigin, _ := checkpoint.Origin("example.com/afr", other.id)
	otherCP, err := checkpoint.Sign(otherOrigin, checkpoint.Roots(other.leaves), op)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w1.AddCheckpoint(ctx, otherCP, checkpoint.Roots(other.leaves), 0); !errors.As(err, &status) || status.Code != http.StatusNotFound {
		t.Fatalf("unknown origin: %v, want 404", err)
	}

	// A checkpoint signed by another key of the operator's name: refused,
	// and nothing is cosigned.
	forgerSkey, _, err := checkpoint.GenerateKey(nil, "example.com/operator")
	if err != nil {
		t.Fatal(err)
	}
	forger, err := note.NewSigner(forgerSkey)
	if err != nil {
		t.Fatal(err)
	}
	forgedCP, err := checkpoint.Sign(origin, roots, forger)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w1.AddCheckpoint(ctx, forgedCP, roots, 12); !errors.As(err, &status) {
		t.Fatalf("forged operator signature: %v, want the witness to refuse", err)
	} else {
		t.Logf("forged operator signature: witness answered %d", status.Code)
	}
}

// The CLI against a real witness: afr checkpoint writes the checkpoint,
// afr checkpoint cosign gets it cosigned (from a stale --old, so through a
// 409), and afr verify accepts it under a 1-of-1 witness policy.
func TestCLIWithRealWitness(t *testing.T) {
	dir := t.TempDir()
	afr := filepath.Join(dir, "afr")
	build := exec.Command("go", "build", "-o", afr, "./cmd/afr")
	build.Dir = "../.." // AFR's own module, with its own dependencies
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building afr: %v\n%s", err, out)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(afr, args...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("afr %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String() + stderr.String()
	}
	lg := makeLog(t, 50, 10, 3)
	run("checkpoint", "keygen", "--name", "example.com/operator", "--key", "op.key")
	run("checkpoint", "keygen", "--name", "w1.example", "--key", "w1.key")
	run("checkpoint", "--log", lg.dir, "--key", "op.key", "--origin-prefix", "example.com/afr", "-o", "cp")

	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	origin, err := checkpoint.Origin("example.com/afr", lg.id)
	if err != nil {
		t.Fatal(err)
	}
	wSigner, err := fnote.NewSignerForCosignatureV1(read("w1.key"))
	if err != nil {
		t.Fatal(err)
	}
	w := startWitness(t, wSigner, read("w1.key.vkey"), origin, read("op.key.vkey"))
	// The witness first sees the log at 3 epochs, so --old 0 is stale.
	first, err := checkpoint.Sign(origin, checkpoint.Roots(lg.leaves[:3]), mustSigner(t, read("op.key")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddCheckpoint(context.Background(), first, checkpoint.Roots(lg.leaves[:3]), 0); err != nil {
		t.Fatal(err)
	}
	out := run("checkpoint", "cosign", "--checkpoint", "cp", "--vkey", "op.key.vkey", "--witness-url", w.URL, "--witness", "w1.key.vkey")
	if !strings.Contains(out, "w1.example cosigned size 5") {
		t.Fatalf("cosign said: %s", out)
	}
	out = run("verify", "--log", lg.dir, "--checkpoint", "cp", "--checkpoint-key", "op.key.vkey", "--witness", "w1.key.vkey", "--origin-prefix", "example.com/afr")
	if !strings.HasPrefix(out, "VERIFIED") || !strings.Contains(out, "anchored: 5 epochs, 50 events") {
		t.Fatalf("verify said: %s", out)
	}
}

func mustSigner(t *testing.T, skey string) note.Signer {
	t.Helper()
	s, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
