package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/durable"
	"github.com/agentflightrecorder/afr/internal/readlimit"
	"github.com/agentflightrecorder/afr/verifier"
)

// ErrLeaves: the leaves published with a checkpoint are not the epoch
// roots it commits to (wrong count, epochs out of order, a broken
// back-pointer, or roots that do not hash to its root).
var ErrLeaves = errors.New("checkpoint: leaves do not match the checkpoint")

// Published is a checkpoint as its operator publishes it: the signed (and
// cosigned) note, and its leaves — the epoch roots R_0 … R_{n−1} it covers,
// as anchors (epoch, root, prev_root) — so that a verifier can match each
// epoch of a log, not only the whole.
type Published struct {
	Name   string // where it was read from, for messages
	Note   []byte
	Leaves []format.Anchor
}

// LeavesPath is where the leaves of the checkpoint at path are published:
// path + ".leaves.json", an anchors file (docs/SPEC.md, "Anchors file").
func LeavesPath(path string) string { return path + ".leaves.json" }

// LeavesMissingError is returned by ReadPublished for a checkpoint whose
// leaves file (LeavesPath) does not exist: WritePublished writes it beside
// the checkpoint, and without it there is nothing the checkpoint's root
// can be checked against.
type LeavesMissingError struct {
	Checkpoint string
	Err        error // wraps os.ErrNotExist
}

func (e *LeavesMissingError) Error() string {
	return fmt.Sprintf("checkpoint %s: its leaves %s are missing: %v", e.Checkpoint, LeavesPath(e.Checkpoint), e.Err)
}

func (e *LeavesMissingError) Unwrap() error { return e.Err }

// ReadPublished reads the checkpoint note at path and its leaves at
// LeavesPath(path) (a *LeavesMissingError when they are absent). It checks
// neither: Open does.
func ReadPublished(ctx context.Context, path string) (Published, error) {
	raw, err := readlimit.ReadFile(path, MaxNoteBytes)
	if errors.Is(err, readlimit.ErrTooLarge) {
		return Published{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if err != nil {
		return Published{}, err
	}
	leaves, err := verifier.AnchorsFile(LeavesPath(path)).Anchors(ctx)
	if errors.Is(err, os.ErrNotExist) {
		return Published{}, &LeavesMissingError{Checkpoint: path, Err: err}
	}
	if err != nil {
		return Published{}, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return Published{Name: path, Note: raw, Leaves: leaves}, nil
}

// WritePublished writes the leaves to LeavesPath(path), then the note to
// path, each replaced durably (written aside, synced, renamed). A crash
// between the two leaves the new leaves beside the old note, which Open
// refuses (ErrLeaves) until the next WritePublished; CheckExtends reads
// the note alone, so the operator can always sign again.
func WritePublished(path string, note []byte, leaves []format.Anchor) error {
	b, err := format.MarshalAnchors(leaves)
	if err != nil {
		return err
	}
	if err := durable.WriteFile(LeavesPath(path), b, 0o644); err != nil {
		return err
	}
	return WriteNote(path, note)
}

// WriteNote replaces the checkpoint note at path durably (after adding a
// witness's cosignature, say).
func WriteNote(path string, note []byte) error { return durable.WriteFile(path, note, 0o644) }

// Open verifies a published checkpoint under policy p for the log logID
// (see Verify) and checks its leaves against it: exactly Size anchors for
// epochs 0 … Size−1 in order, each back-pointer the previous root (zero for
// epoch 0), and the roots hashing to the checkpoint's root. It returns the
// checkpoint and its leaves as anchors whose Source names the checkpoint
// and its witnesses. Errors wrap ErrLeaves or Verify's errors.
func Open(pub Published, p *Policy, logID format.Digest) (*Checkpoint, []format.Anchor, error) {
	cp, err := Verify(pub.Note, p, logID)
	if err != nil {
		return nil, nil, err
	}
	if uint64(len(pub.Leaves)) != cp.Size {
		return nil, nil, fmt.Errorf("%w: %d leaves for a checkpoint of size %d", ErrLeaves, len(pub.Leaves), cp.Size)
	}
	roots, err := leafRoots(pub.Leaves)
	if err != nil {
		return nil, nil, err
	}
	if got := Root(roots); got != cp.Root {
		return nil, nil, fmt.Errorf("%w: the %d leaves hash to %s, the checkpoint's root is %s", ErrLeaves, cp.Size, got, cp.Root)
	}
	src := fmt.Sprintf("checkpoint %s size %d signed by %s", cp.Origin, cp.Size, p.Operator.Name())
	if len(cp.Cosignatures) > 0 {
		src += ", cosigned by " + cp.witnessNames()
	}
	out := make([]format.Anchor, len(pub.Leaves))
	for i, a := range pub.Leaves {
		a.Source = src
		out[i] = a
	}
	return cp, out, nil
}

// leafRoots checks that leaves are the anchors of epochs 0, 1, … in order,
// each linking the previous root, and returns their roots.
func leafRoots(leaves []format.Anchor) ([]format.Digest, error) {
	roots := make([]format.Digest, len(leaves))
	var prev format.Digest
	for i, a := range leaves {
		if a.Epoch != uint64(i) {
			return nil, fmt.Errorf("%w: leaf %d is for epoch %d (leaves list epochs 0, 1, … in order)", ErrLeaves, i, a.Epoch)
		}
		if a.PrevRoot != prev {
			return nil, fmt.Errorf("%w: leaf %d's prev_root %s is not the root of epoch %d (%s)", ErrLeaves, i, a.PrevRoot, i-1, prev)
		}
		roots[i], prev = a.Root, a.Root
	}
	return roots, nil
}

// ErrDamagedLog is wrapped by the error of Leaves for a log whose epoch
// headers are not one chain: a verifier of the log says where.
var ErrDamagedLog = errors.New("checkpoint: the log's epoch chain is damaged")

// Leaves returns the leaves of a log's checkpoint: the anchors of its
// sealed epochs (verifier.AnchorsFromLog), refused unless they are epochs
// 0, 1, … each linking the previous (an error wrapping ErrDamagedLog), so
// that an operator never signs a checkpoint over a damaged epoch chain.
func Leaves(src verifier.Source) ([]format.Anchor, error) {
	as, err := verifier.AnchorsFromLog(src)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: reading the epoch headers: %w", err)
	}
	if _, err := leafRoots(as); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDamagedLog, err)
	}
	return as, nil
}

// Roots returns the roots of anchors, in order.
func Roots(as []format.Anchor) []format.Digest {
	out := make([]format.Digest, len(as))
	for i, a := range as {
		out[i] = a.Root
	}
	return out
}

// Anchors is a verifier.AnchorSource over published checkpoints of one log:
// each must satisfy Policy and name LogID, and its leaves must match it
// (Open); the anchors are the leaves of all of them. Two checkpoints that
// are not consistent — one's leaves are not a prefix of the other's — give
// two roots for one epoch, which the verifier reports as an anchor_conflict
// finding (verdict tampered): the operator signed a fork.
type Anchors struct {
	Checkpoints []Published
	Policy      *Policy
	LogID       format.Digest
}

// Anchors implements verifier.AnchorSource. A checkpoint that fails Open
// is an error naming it: it is not evidence about the log.
func (a Anchors) Anchors(ctx context.Context) ([]format.Anchor, error) {
	if len(a.Checkpoints) == 0 {
		return nil, errors.New("checkpoint: no checkpoints given")
	}
	if a.LogID.IsZero() {
		return nil, errors.New("checkpoint: the log id to verify checkpoints for is missing")
	}
	var out []format.Anchor
	for _, pub := range a.Checkpoints {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		_, as, err := Open(pub, a.Policy, a.LogID)
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s: %w", pub.Name, err)
		}
		out = append(out, as...)
	}
	return out, nil
}

// ErrWouldFork: the leaves to sign do not extend those of the operator's
// previous checkpoint; signing them would equivocate.
var ErrWouldFork = errors.New("checkpoint: the log does not extend the previous checkpoint")

// CheckExtends returns nil if leaves (the log's epoch anchors now) extend
// the previous checkpoint note prev, verified under p for logID: its size
// is at most len(leaves) and the first that many roots hash to its root.
// An operator checks this before signing a new checkpoint, since C2SP
// forbids signing one inconsistent with any it signed before.
func CheckExtends(prev []byte, p *Policy, logID format.Digest, leaves []format.Anchor) error {
	cp, err := Verify(prev, p, logID)
	if err != nil {
		return fmt.Errorf("the previous checkpoint: %w", err)
	}
	if cp.Size > uint64(len(leaves)) {
		return fmt.Errorf("%w: the previous checkpoint covers %d epochs, the log has %d (a truncated or older copy?)", ErrWouldFork, cp.Size, len(leaves))
	}
	if got := Root(Roots(leaves[:cp.Size])); got != cp.Root {
		return fmt.Errorf("%w: the log's epochs 0..%d hash to %s, the previous checkpoint's root is %s: the log was rewritten", ErrWouldFork, cp.Size-1, got, cp.Root)
	}
	return nil
}
