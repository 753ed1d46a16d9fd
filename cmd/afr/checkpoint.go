package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	fnote "github.com/transparency-dev/formats/note"

	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

func init() {
	register(&command{name: "checkpoint", summary: "sign witness-cosignable checkpoints of a log (C2SP tlog-checkpoint)", run: runCheckpoint, usage: `
Usage: afr checkpoint --log DIR --key FILE [--origin-prefix PREFIX] [--out FILE]
       afr checkpoint keygen --name NAME [--key FILE]
       afr checkpoint witness-request --checkpoint FILE --vkey VKEY [--old N] [-o FILE]
       afr checkpoint cosign --checkpoint FILE --vkey VKEY --witness-url URL --witness VKEY [--old N]

A checkpoint commits to a log without any chain: the root of an RFC 6962
tree whose leaves are the log's epoch roots R_0 … R_{n−1}, as a C2SP
tlog-checkpoint note signed with the operator's note key (docs/SPEC.md,
"Checkpoints"). Independent witnesses cosign it after checking that it
extends the last checkpoint they saw, so the operator cannot show two
histories of the log to different people.

afr checkpoint writes the checkpoint of the log's sealed epochs to --out
(default <log>/checkpoint) and its leaves, the epoch roots as an anchors
file, to <out>.leaves.json: a verifier needs both. Its origin is
PREFIX/<log id> (default prefix afr.log). If --out holds a checkpoint of
this log already, the new one must extend it: the command refuses to sign
a log that was rewritten or truncated since (exit 1).

keygen writes a new Ed25519 note key: the signer key to --key (default
checkpoint.key, mode 0600, never replaced) and the verifier key to
<key>.vkey. Publish the verifier key; witnesses and verifiers need it. The
same command makes a witness's key (cosignature/v1).

witness-request prints the body of a C2SP tlog-witness add-checkpoint
request for the checkpoint: the size the witness last cosigned (--old,
default 0), a consistency proof from it, and the checkpoint.

cosign sends that request to a witness (POST URL/add-checkpoint), retries
once from the size the witness reports if --old is stale, checks its
cosignature with the witness's verifier key and appends it to the
checkpoint file.

Verify a log against checkpoints with afr verify --checkpoint FILE
--checkpoint-key VKEY [--witness VKEY …] [--min-witnesses N]
[--origin-prefix PREFIX]. A VKEY is the key itself (name+hash+key) or a
file holding it. Only the origin PREFIX/<log id> is accepted (default
afr.log): one origin per log, so that witnesses see one history of it. A
key counts once: the same public key under two names, or the operator's
key given as a witness, is refused.

Examples:
  afr checkpoint keygen --name example.com/operator --key op.key
  afr checkpoint --log ./afr-log --key op.key
  afr checkpoint witness-request --checkpoint ./afr-log/checkpoint --vkey op.key.vkey --old 12
  afr checkpoint cosign --checkpoint ./afr-log/checkpoint --vkey op.key.vkey --witness-url https://witness.example --witness w.vkey
  afr verify --log ./afr-log --checkpoint ./afr-log/checkpoint --checkpoint-key op.key.vkey --witness w.vkey`})
}

func runCheckpoint(e *env, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "keygen":
			return runCheckpointKeygen(e, args[1:])
		case "witness-request":
			return runWitnessRequest(e, args[1:])
		case "cosign":
			return runCheckpointCosign(e, args[1:])
		}
	}
	fs := commands["checkpoint"].flags(e)
	logDir := fs.String("log", "", "log directory (required)")
	keyFile := fs.String("key", "", "the operator's note signer key, from afr checkpoint keygen (required)")
	prefix := fs.String("origin-prefix", checkpoint.DefaultOriginPrefix, "origin prefix: the origin is PREFIX/<log id>")
	out := fs.String("out", "", "checkpoint file to write (default <log>/checkpoint); its leaves go to <out>.leaves.json")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unknown subcommand %q: want keygen, witness-request or cosign, or flags", fs.Arg(0))}
	}
	if *logDir == "" || *keyFile == "" {
		return usageError{"--log and --key are required"}
	}
	if *out == "" {
		*out = filepath.Join(*logDir, "checkpoint")
	}
	signer, v, err := checkpoint.ReadSigner(*keyFile)
	if err != nil {
		return err
	}
	l, err := recorder.OpenLog(*logDir)
	if err != nil {
		return err
	}
	id, err := l.LogID()
	if err != nil {
		return err
	}
	origin, err := checkpoint.Origin(*prefix, id)
	if err != nil {
		return usageError{err.Error()}
	}
	leaves, err := checkpoint.Leaves(l)
	if err != nil {
		return err
	}
	if len(leaves) == 0 {
		return errors.New("the log has no sealed epoch yet: nothing to checkpoint (afr seal seals the open epoch)")
	}
	if prev, err := os.ReadFile(*out); err == nil {
		if err := checkpoint.CheckExtends(prev, &checkpoint.Policy{Operator: v}, id, leaves); err != nil {
			return fmt.Errorf("not signing: %s: %w (the operator must never sign two checkpoints that do not extend one another; write elsewhere with --out only if %s is not yours)", *out, err, *out)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	note, err := checkpoint.Sign(origin, checkpoint.Roots(leaves), signer)
	if err != nil {
		return err
	}
	if err := checkpoint.WritePublished(*out, note, leaves); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s", note)
	fmt.Fprintf(e.stderr, "afr checkpoint: %s size %d (epochs 0..%d) written to %s, leaves to %s\n",
		origin, len(leaves), len(leaves)-1, *out, checkpoint.LeavesPath(*out))
	return nil
}

func runCheckpointKeygen(e *env, args []string) error {
	fs := commands["checkpoint"].flags(e)
	name := fs.String("name", "", "key name, a schema-less URL such as example.com/operator (required)")
	keyFile := fs.String("key", "checkpoint.key", "signer key file to write (mode 0600); the verifier key goes to <key>.vkey")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *name == "" {
		return usageError{"--name is required (e.g. example.com/operator)"}
	}
	vkey, err := checkpoint.WriteKey(*keyFile, *name)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, vkey)
	fmt.Fprintf(e.stderr, "afr checkpoint keygen: signer key %s (keep it secret), verifier key %s.vkey\n", *keyFile, *keyFile)
	return nil
}

// publishedFlags are the flags naming a published checkpoint and the
// operator key that signed it.
type publishedFlags struct{ file, vkey *string }

func addPublishedFlags(fs *flag.FlagSet) publishedFlags {
	return publishedFlags{
		file: fs.String("checkpoint", "", "checkpoint file, with its leaves beside it (required)"),
		vkey: fs.String("vkey", "", "the operator's verifier key, or a file holding it (required)"),
	}
}

// open reads and verifies the checkpoint (operator signature, leaves).
func (p publishedFlags) open() (checkpoint.Published, *checkpoint.Checkpoint, error) {
	if *p.file == "" || *p.vkey == "" {
		return checkpoint.Published{}, nil, usageError{"--checkpoint and --vkey are required"}
	}
	vk, err := checkpoint.ReadVKey(*p.vkey)
	if err != nil {
		return checkpoint.Published{}, nil, err
	}
	policy, err := checkpoint.NewPolicy(vk, nil, 0)
	if err != nil {
		return checkpoint.Published{}, nil, err
	}
	pub, err := checkpoint.ReadPublished(context.Background(), *p.file)
	if err != nil {
		return checkpoint.Published{}, nil, err
	}
	// The operator's own checkpoint, under whatever prefix it chose: its
	// first line is the origin, PREFIX/<log id>.
	origin, _, _ := strings.Cut(string(pub.Note), "\n")
	if i := strings.LastIndexByte(origin, '/'); i > 0 {
		policy.OriginPrefix = origin[:i]
	}
	cp, _, err := checkpoint.Open(pub, policy, format.Digest{})
	if err != nil {
		return checkpoint.Published{}, nil, fmt.Errorf("checkpoint %s: %w", *p.file, err)
	}
	return pub, cp, nil
}

func runWitnessRequest(e *env, args []string) error {
	fs := commands["checkpoint"].flags(e)
	pf := addPublishedFlags(fs)
	old := fs.Uint64("old", 0, "the size of the checkpoint the witness last cosigned (0: never)")
	out := fs.String("o", "", "file to write (default: standard output)")
	if err := parse(fs, args); err != nil {
		return err
	}
	pub, cp, err := pf.open()
	if err != nil {
		return err
	}
	if *old > cp.Size {
		return usageError{fmt.Sprintf("--old %d is larger than the checkpoint's size %d", *old, cp.Size)}
	}
	req, err := checkpoint.NewRequest(pub.Note, checkpoint.Roots(pub.Leaves), *old)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = e.stdout.Write(req.Marshal())
		return err
	}
	return os.WriteFile(*out, req.Marshal(), 0o644)
}

func runCheckpointCosign(e *env, args []string) error {
	fs := commands["checkpoint"].flags(e)
	pf := addPublishedFlags(fs)
	url := fs.String("witness-url", "", "the witness's submission prefix: requests go to URL/add-checkpoint (required)")
	wkey := fs.String("witness", "", "the witness's verifier key (cosignature/v1), or a file holding it (required)")
	old := fs.Uint64("old", 0, "the size of the checkpoint the witness last cosigned, if known")
	timeout := fs.Duration("timeout", 30*time.Second, "give up on the witness after this long")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *url == "" || *wkey == "" {
		return usageError{"--witness-url and --witness are required"}
	}
	pub, cp, err := pf.open()
	if err != nil {
		return err
	}
	vk, err := checkpoint.ReadVKey(*wkey)
	if err != nil {
		return err
	}
	wv, err := fnote.NewVerifierForCosignatureV1(vk)
	if err != nil {
		return fmt.Errorf("--witness %q: %v (want a cosignature/v1 verifier key: name+hash+key)", vk, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	w := &checkpoint.Witness{URL: *url, Verifier: wv}
	cosigned, err := w.Cosign(ctx, pub.Note, checkpoint.Roots(pub.Leaves), *old)
	if err != nil {
		return err
	}
	if err := checkpoint.WriteNote(*pf.file, cosigned); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "afr checkpoint cosign: %s cosigned size %d; %s now holds %d signature lines\n",
		wv.Name(), cp.Size, *pf.file, strings.Count(string(cosigned), "\n— ")+1)
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// checkpointFlags are afr verify's flags for checkpoints as anchors.
type checkpointFlags struct {
	files, witnesses stringList
	vkey, prefix     *string
	min              *int
}

func addCheckpointFlags(fs *flag.FlagSet) *checkpointFlags {
	c := &checkpointFlags{}
	fs.Var(&c.files, "checkpoint", "checkpoint file to take anchors from, its leaves beside it (repeatable)")
	c.vkey = fs.String("checkpoint-key", "", "the operator's checkpoint verifier key, or a file holding it (required with --checkpoint)")
	fs.Var(&c.witnesses, "witness", "a trusted witness's verifier key, or a file holding it (repeatable)")
	c.min = fs.Int("min-witnesses", -1, "witnesses that must have cosigned each checkpoint (default: every --witness)")
	c.prefix = fs.String("origin-prefix", checkpoint.DefaultOriginPrefix, "the origin prefix the operator publishes checkpoints under: only PREFIX/<log id> is accepted")
	return c
}

// anchors returns base with the anchors of the checkpoints added, for the
// log of logDir or the bundle of bundleFile; base alone without
// --checkpoint.
func (c *checkpointFlags) anchors(ctx context.Context, base verifier.AnchorSource, logDir, bundleFile string) (verifier.AnchorSource, error) {
	if len(c.files) == 0 {
		if *c.vkey != "" || len(c.witnesses) > 0 || *c.min >= 0 {
			return nil, usageError{"--checkpoint-key, --witness and --min-witnesses need --checkpoint"}
		}
		return base, nil
	}
	if *c.vkey == "" {
		return nil, usageError{"--checkpoint-key is required with --checkpoint (the operator's verifier key)"}
	}
	op, err := checkpoint.ReadVKey(*c.vkey)
	if err != nil {
		return nil, err
	}
	var ws []string
	for _, w := range c.witnesses {
		k, err := checkpoint.ReadVKey(w)
		if err != nil {
			return nil, err
		}
		ws = append(ws, k)
	}
	min := *c.min
	if min < 0 {
		min = len(ws)
	}
	policy, err := checkpoint.NewPolicy(op, ws, min)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	policy.OriginPrefix = *c.prefix
	id, err := targetLogID(logDir, bundleFile)
	if err != nil {
		return nil, err
	}
	src := checkpoint.Anchors{Policy: policy, LogID: id}
	for _, f := range c.files {
		pub, err := checkpoint.ReadPublished(ctx, f)
		if err != nil {
			return nil, err
		}
		src.Checkpoints = append(src.Checkpoints, pub)
	}
	if base == nil {
		return src, nil
	}
	return anchorSources{base, src}, nil
}

// anchorSources is the union of anchor sources: the verifier checks their
// anchors against one another (two roots for one epoch are
// anchor_conflict). It is an AnchorChecker so that the findings of a
// member that is one (batch anchors) are kept.
type anchorSources []verifier.AnchorSource

func (s anchorSources) Anchors(ctx context.Context) ([]format.Anchor, error) {
	ca, err := s.CheckAnchors(ctx)
	if err != nil {
		return nil, err
	}
	return ca.Anchors, nil
}

// CheckAnchors implements verifier.AnchorChecker: the anchors and findings
// of all members, partial if any member is.
func (s anchorSources) CheckAnchors(ctx context.Context) (*verifier.CheckedAnchors, error) {
	out := &verifier.CheckedAnchors{}
	for _, src := range s {
		if ac, ok := src.(verifier.AnchorChecker); ok {
			ca, err := ac.CheckAnchors(ctx)
			if err != nil {
				return nil, err
			}
			out.Anchors = append(out.Anchors, ca.Anchors...)
			out.Findings = append(out.Findings, ca.Findings...)
			out.Partial = out.Partial || ca.Partial
			continue
		}
		as, err := src.Anchors(ctx)
		if err != nil {
			return nil, err
		}
		out.Anchors = append(out.Anchors, as...)
	}
	return out, nil
}
