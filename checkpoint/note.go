package checkpoint

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/transparency-dev/formats/log"
	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"github.com/agentflightrecorder/afr/format"
)

// DefaultOriginPrefix is the origin prefix of a log whose operator chose
// none: its checkpoints' origin is "afr.log/<log id in hex>".
const DefaultOriginPrefix = "afr.log"

// MaxNoteBytes bounds a checkpoint note (text and signatures) a verifier
// reads: far above a checkpoint with the 16 signatures signed-note requires
// verifiers to accept, even ML-DSA-44 cosignatures of about 3.3 KB each.
const MaxNoteBytes = 256 << 10

// Errors wrapped by Verify and the functions built on it, one per kind of
// damage, so that a caller can tell them apart with errors.Is.
var (
	// ErrMalformed: the bytes are not a signed note holding an AFR
	// checkpoint (garbage, a bad line, a non-canonical size, a root that
	// is not 32 bytes, extension lines, too large).
	ErrMalformed = errors.New("checkpoint: malformed checkpoint")
	// ErrSignature: the operator's signature is missing, or a signature by
	// a trusted key (operator or witness) does not verify.
	ErrSignature = errors.New("checkpoint: bad signature")
	// ErrPolicy: fewer trusted witnesses cosigned than the policy needs.
	ErrPolicy = errors.New("checkpoint: witness policy not met")
	// ErrForeignLog: the checkpoint's origin names another log.
	ErrForeignLog = errors.New("checkpoint: checkpoint of another log")
)

// OriginError is returned by Verify for a checkpoint of the log whose
// origin is not Want, the one origin the policy accepts for it
// (Policy.OriginPrefix): a second origin for one log could carry a second,
// separately witnessed history. It wraps ErrPolicy.
type OriginError struct {
	Origin string
	Want   string
}

func (e *OriginError) Error() string {
	return fmt.Sprintf("%v: origin %q is not the origin this verifier accepts for the log (%q): a second origin for one log could carry a second, separately witnessed history",
		ErrPolicy, e.Origin, e.Want)
}

func (e *OriginError) Unwrap() error { return ErrPolicy }

// Origin returns the origin of the checkpoints of the log logID under
// prefix (DefaultOriginPrefix when empty): prefix + "/" + the log id in
// lowercase hex. The prefix must be a non-empty schema-less URL-like
// string without spaces, "+" or control characters, as C2SP recommends.
func Origin(prefix string, logID format.Digest) (string, error) {
	if prefix == "" {
		prefix = DefaultOriginPrefix
	}
	if strings.HasSuffix(prefix, "/") || strings.ContainsFunc(prefix, func(r rune) bool {
		return unicode.IsSpace(r) || r == '+' || r < 0x20 || r == 0x7f
	}) {
		return "", fmt.Errorf("checkpoint: origin prefix %q: want a schema-less URL such as example.com/afr, without spaces, '+', control characters or a trailing '/'", prefix)
	}
	return prefix + "/" + hex.EncodeToString(logID[:]), nil
}

// LogIDOfOrigin returns the log id an origin names: its last "/"-separated
// element, 64 lowercase hex digits. See Origin.
func LogIDOfOrigin(origin string) (format.Digest, error) {
	i := strings.LastIndexByte(origin, '/')
	var id format.Digest
	tail := origin[i+1:]
	if i <= 0 || len(tail) != 2*len(id) || strings.ToLower(tail) != tail {
		return id, fmt.Errorf("%w: origin %q does not end in /<log id: 64 lowercase hex digits>", ErrMalformed, origin)
	}
	if _, err := hex.Decode(id[:], []byte(tail)); err != nil {
		return id, fmt.Errorf("%w: origin %q does not end in /<log id: 64 lowercase hex digits>", ErrMalformed, origin)
	}
	return id, nil
}

// Body returns the checkpoint note text of a tree of size leaves with root
// under origin: the three lines of C2SP tlog-checkpoint, no extension lines.
func Body(origin string, size uint64, root format.Digest) []byte {
	return log.Checkpoint{Origin: origin, Size: size, Hash: root[:]}.Marshal()
}

// Sign returns the checkpoint of leaves (the log's epoch roots R_0 …
// R_{n−1}, in epoch order) under origin, as a note signed by signer.
func Sign(origin string, leaves []format.Digest, signer note.Signer) ([]byte, error) {
	if _, err := LogIDOfOrigin(origin); err != nil {
		return nil, err
	}
	return note.Sign(&note.Note{Text: string(Body(origin, uint64(len(leaves)), Root(leaves)))}, signer)
}

// Policy says whose signatures make a checkpoint trusted: the operator's
// (always required) and at least MinWitnesses of Witnesses.
type Policy struct {
	Operator     note.Verifier
	Witnesses    []note.Verifier
	MinWitnesses int
	// OriginPrefix is the origin prefix the verifier expects
	// (DefaultOriginPrefix when empty): a checkpoint's origin must be
	// exactly OriginPrefix/<log id>. Witnesses keep one history per origin,
	// so an operator allowed two origins for one log could have two
	// diverging histories of it witnessed, one shown to each verifier.
	OriginPrefix string
}

// NewPolicy builds a policy from verifier keys (C2SP signed-note vkeys):
// the operator's (an Ed25519 note key, as GenerateKey writes), and the
// witnesses' (cosignature/v1: Ed25519, type 0x04 or 0x01, or ML-DSA-44,
// type 0x06), of which at least minWitnesses must have cosigned.
func NewPolicy(operatorVKey string, witnessVKeys []string, minWitnesses int) (*Policy, error) {
	op, err := fnote.NewVerifier(strings.TrimSpace(operatorVKey))
	if err != nil {
		return nil, &KeyError{Key: operatorVKey, Err: err}
	}
	p := &Policy{Operator: op, MinWitnesses: minWitnesses}
	// One public key counts once, whatever name or key type it is given
	// under: a cosignature/v1 signature does not cover the key's name, and
	// the operator's own key is no witness.
	keys := map[string]string{publicKey(operatorVKey): "the operator's key"}
	for _, k := range witnessVKeys {
		w, err := fnote.NewVerifierForCosignatureV1(strings.TrimSpace(k))
		if err != nil {
			return nil, fmt.Errorf("checkpoint: witness verifier key %q: %v (want a cosignature/v1 vkey: name+hash+key)", k, err)
		}
		if prev, dup := keys[publicKey(k)]; dup {
			return nil, fmt.Errorf("checkpoint: witness key %s is the same public key as %s: one signer counts once", keyID(w), prev)
		}
		keys[publicKey(k)] = "witness " + keyID(w)
		p.Witnesses = append(p.Witnesses, w)
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	return p, nil
}

// check refuses a policy that cannot be met or names a key twice.
func (p *Policy) check() error {
	if p.Operator == nil {
		return errors.New("checkpoint: the policy has no operator key")
	}
	if p.MinWitnesses < 0 || p.MinWitnesses > len(p.Witnesses) {
		return fmt.Errorf("checkpoint: the policy needs %d witnesses of the %d given", p.MinWitnesses, len(p.Witnesses))
	}
	seen := map[string]bool{keyID(p.Operator): true}
	for _, w := range p.Witnesses {
		if seen[keyID(w)] {
			return fmt.Errorf("checkpoint: key %s is given twice (or is the operator's)", keyID(w))
		}
		seen[keyID(w)] = true
	}
	return nil
}

// publicKey returns the public key a verifier key (name+hash+base64(type
// ‖ key)) holds, without its name and type byte.
func publicKey(vkey string) string {
	parts := strings.SplitN(strings.TrimSpace(vkey), "+", 3)
	if len(parts) != 3 {
		return vkey
	}
	b, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(b) < 2 {
		return vkey
	}
	return string(b[1:])
}

// keyID names a key as a signature line does: name and key hash.
func keyID(v note.Verifier) string { return fmt.Sprintf("%s+%08x", v.Name(), v.KeyHash()) }

// Checkpoint is a checkpoint whose signatures satisfied a policy.
type Checkpoint struct {
	Origin string
	LogID  format.Digest // named by the origin
	Size   uint64        // epochs covered: R_0 … R_{Size−1}
	Root   format.Digest
	// Cosignatures are the policy's witnesses that cosigned, in the
	// policy's order.
	Cosignatures []Cosignature
	Note         []byte // the note as read
}

// Cosignature is one verified witness cosignature.
type Cosignature struct {
	Witness string    // the witness's key name
	Time    time.Time // when it cosigned (cosignature/v1 timestamp)
}

// Verify reads the signed checkpoint raw under policy p: the operator's
// signature must verify, every signature by a key of the policy must
// verify (as signed-note requires), at least p.MinWitnesses witnesses must
// have cosigned, and the origin must name logID (unless logID is zero,
// which accepts any log). Signatures by keys the policy does not name are
// ignored. Every failure wraps one of ErrMalformed, ErrSignature,
// ErrForeignLog and ErrPolicy.
func Verify(raw []byte, p *Policy, logID format.Digest) (*Checkpoint, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if len(raw) > MaxNoteBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d a checkpoint may have", ErrMalformed, len(raw), MaxNoteBytes)
	}
	n, err := note.Open(raw, note.VerifierList(append([]note.Verifier{p.Operator}, p.Witnesses...)...))
	var unverified *note.UnverifiedNoteError
	var invalid *note.InvalidSignatureError
	switch {
	case errors.As(err, &unverified):
		return nil, fmt.Errorf("%w: no signature by the operator key %s (signed by: %s)", ErrSignature, keyID(p.Operator), sigNames(unverified.Note.UnverifiedSigs))
	case errors.As(err, &invalid):
		return nil, fmt.Errorf("%w: the signature by %s+%08x does not verify", ErrSignature, invalid.Name, invalid.Hash)
	case err != nil:
		return nil, fmt.Errorf("%w: not a signed note (%v): want the checkpoint lines, a blank line and signature lines \"— name signature\"", ErrMalformed, err)
	}
	if !signedBy(n, p.Operator) {
		return nil, fmt.Errorf("%w: no signature by the operator key %s (signed by: %s)", ErrSignature, keyID(p.Operator), sigNames(append(n.Sigs, n.UnverifiedSigs...)))
	}
	cp, err := parseBody(n.Text)
	if err != nil {
		return nil, err
	}
	cp.Note = raw
	if !logID.IsZero() && cp.LogID != logID {
		return nil, fmt.Errorf("%w: its origin %q names log %s, not this log (%s)", ErrForeignLog, cp.Origin, cp.LogID, logID)
	}
	if want, err := Origin(p.OriginPrefix, cp.LogID); err != nil || cp.Origin != want {
		return nil, &OriginError{Origin: cp.Origin, Want: want}
	}
	for _, w := range p.Witnesses {
		for _, s := range n.Sigs {
			if s.Name == w.Name() && s.Hash == w.KeyHash() {
				t, err := fnote.CoSigV1Timestamp(s)
				if err != nil {
					return nil, fmt.Errorf("%w: cosignature by %s: %v", ErrSignature, keyID(w), err)
				}
				cp.Cosignatures = append(cp.Cosignatures, Cosignature{Witness: w.Name(), Time: t.UTC()})
			}
		}
	}
	if len(cp.Cosignatures) < p.MinWitnesses {
		return nil, fmt.Errorf("%w: cosigned by %d of the %d trusted witnesses (%s), the policy needs %d",
			ErrPolicy, len(cp.Cosignatures), len(p.Witnesses), cp.witnessNames(), p.MinWitnesses)
	}
	return cp, nil
}

// parseBody parses verified note text with formats' checkpoint parser and
// holds it to what AFR writes: a canonical size, a 32-byte root, an origin
// naming a log id, no extension lines.
func parseBody(text string) (*Checkpoint, error) {
	var c log.Checkpoint
	rest, err := c.Unmarshal([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("%w: %d bytes of extension lines after the root hash (AFR checkpoints have none)", ErrMalformed, len(rest))
	}
	if len(c.Hash) != len(format.Digest{}) {
		return nil, fmt.Errorf("%w: the root hash has %d bytes, want 32", ErrMalformed, len(c.Hash))
	}
	cp := &Checkpoint{Origin: c.Origin, Size: c.Size}
	copy(cp.Root[:], c.Hash)
	if !bytes.Equal(c.Marshal(), []byte(text)) {
		return nil, fmt.Errorf("%w: the size or root line is not in canonical form (size %s, no leading zeros; standard padded base64)", ErrMalformed, strconv.Quote(strings.SplitN(text, "\n", 3)[1]))
	}
	if cp.LogID, err = LogIDOfOrigin(c.Origin); err != nil {
		return nil, err
	}
	return cp, nil
}

func signedBy(n *note.Note, v note.Verifier) bool {
	for _, s := range n.Sigs {
		if s.Name == v.Name() && s.Hash == v.KeyHash() {
			return true
		}
	}
	return false
}

func sigNames(sigs []note.Signature) string {
	if len(sigs) == 0 {
		return "no key"
	}
	names := make([]string, len(sigs))
	for i, s := range sigs {
		names[i] = fmt.Sprintf("%s+%08x", s.Name, s.Hash)
	}
	return strings.Join(names, ", ")
}

func (c *Checkpoint) witnessNames() string {
	if len(c.Cosignatures) == 0 {
		return "none"
	}
	names := make([]string, len(c.Cosignatures))
	for i, s := range c.Cosignatures {
		names[i] = s.Witness
	}
	return strings.Join(names, ", ")
}

// AddSignatures returns the note cp with the signature lines sigs (each
// "— name base64\n", as a witness answers add-checkpoint) appended, less
// any line it already has.
func AddSignatures(cp, sigs []byte) ([]byte, error) {
	if len(cp) == 0 || cp[len(cp)-1] != '\n' || !bytes.Contains(cp, []byte("\n\n")) {
		return nil, fmt.Errorf("%w: not a signed note", ErrMalformed)
	}
	out := bytes.Clone(cp)
	have := map[string]bool{}
	_, sigBlock, _ := cutLast(cp, "\n\n")
	for _, l := range strings.SplitAfter(string(sigBlock), "\n") {
		have[l] = true
	}
	for _, l := range strings.SplitAfter(string(sigs), "\n") {
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, "— ") || !strings.HasSuffix(l, "\n") {
			return nil, fmt.Errorf("%w: %q is not a signature line (\"— name signature\\n\")", ErrMalformed, l)
		}
		if !have[l] {
			out = append(out, l...)
			have[l] = true
		}
	}
	return out, nil
}

// cutLast is bytes.Cut at the last occurrence of sep.
func cutLast(b []byte, sep string) (before, after []byte, found bool) {
	i := bytes.LastIndex(b, []byte(sep))
	if i < 0 {
		return b, nil, false
	}
	return b[:i], b[i+len(sep):], true
}
