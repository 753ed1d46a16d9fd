package checkpoint

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"

	"github.com/agentflightrecorder/afr/format"
)

// MaxProofLines is the most consistency proof lines an add-checkpoint
// request may carry (C2SP tlog-witness).
const MaxProofLines = 63

// Request is the body of a C2SP tlog-witness add-checkpoint request: the
// size of the checkpoint the witness last cosigned, a consistency proof
// from it to the new checkpoint, and the new checkpoint (a signed note).
type Request struct {
	OldSize    uint64
	Proof      []format.Digest
	Checkpoint []byte
}

// NewRequest returns the add-checkpoint request for the checkpoint cp of
// leaves (the epoch roots it covers) to a witness that last cosigned size
// oldSize (0 for a witness that never saw the log).
func NewRequest(cp []byte, leaves []format.Digest, oldSize uint64) (*Request, error) {
	p, err := ConsistencyProof(leaves, oldSize)
	if err != nil {
		return nil, err
	}
	return &Request{OldSize: oldSize, Proof: p, Checkpoint: cp}, nil
}

// Marshal returns the request body: "old <size>\n", one base64 line per
// proof hash, an empty line, then the checkpoint.
func (r *Request) Marshal() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "old %d\n", r.OldSize)
	for _, h := range r.Proof {
		b.WriteString(base64.StdEncoding.EncodeToString(h[:]))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.Write(r.Checkpoint)
	return b.Bytes()
}

// ParseRequest parses an add-checkpoint request body as a witness reads
// it. It checks the framing only (canonical old size, at most
// MaxProofLines 32-byte hashes); the checkpoint is checked by Verify and
// the proof by VerifyConsistency.
func ParseRequest(body []byte) (*Request, error) {
	if len(body) > MaxNoteBytes+MaxProofLines*64+64 {
		return nil, fmt.Errorf("%w: request of %d bytes is too large", ErrMalformed, len(body))
	}
	line, rest, ok := bytes.Cut(body, []byte("\n"))
	size, found := strings.CutPrefix(string(line), "old ")
	n, err := strconv.ParseUint(size, 10, 64)
	if !ok || !found || err != nil || strconv.FormatUint(n, 10) != size {
		return nil, fmt.Errorf("%w: the request does not start with \"old <size>\\n\" (size in decimal, no leading zeros)", ErrMalformed)
	}
	r := &Request{OldSize: n}
	for {
		line, rest, ok = bytes.Cut(rest, []byte("\n"))
		if !ok {
			return nil, fmt.Errorf("%w: the request has no empty line before the checkpoint", ErrMalformed)
		}
		if len(line) == 0 {
			break
		}
		if len(r.Proof) == MaxProofLines {
			return nil, fmt.Errorf("%w: more than %d consistency proof lines", ErrMalformed, MaxProofLines)
		}
		// Decoded first, then measured (Decode into a 32-byte array would
		// write past it for a longer line); strict, so that one hash has
		// one line.
		raw, err := base64.StdEncoding.Strict().DecodeString(string(line))
		if err != nil || len(raw) != len(format.Digest{}) {
			return nil, fmt.Errorf("%w: proof line %d is not a base64 32-byte hash", ErrMalformed, len(r.Proof)+1)
		}
		r.Proof = append(r.Proof, format.Digest(raw))
	}
	r.Checkpoint = rest
	return r, nil
}

// Witness is a C2SP tlog-witness to submit checkpoints to.
type Witness struct {
	// URL is the witness's submission prefix: requests go to
	// URL + "/add-checkpoint".
	URL string
	// Verifier checks its cosignatures (NewVerifierForCosignatureV1 of
	// its vkey).
	Verifier note.Verifier
	// Client sends the requests (http.DefaultClient when nil).
	Client *http.Client
}

// ConflictError is a witness's answer 409: it last cosigned another size.
type ConflictError struct{ Size uint64 }

func (e *ConflictError) Error() string {
	return fmt.Sprintf("checkpoint: the witness last cosigned size %d", e.Size)
}

// StatusError is any other answer of a witness than 200 and 409, with
// what it means per C2SP tlog-witness.
type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string {
	what := map[int]string{
		http.StatusNotFound:            "the witness does not know this origin (configure the log's origin and the operator's verifier key on the witness)",
		http.StatusForbidden:           "the witness does not accept the operator's signature (is it configured with the operator's verifier key?)",
		http.StatusBadRequest:          "the witness refused the request as malformed",
		http.StatusUnprocessableEntity: "the witness found the checkpoint inconsistent with the one it cosigned before: the log was rewritten, or the proof is wrong",
	}[e.Code]
	if what == "" {
		what = "unexpected answer"
	}
	return fmt.Sprintf("checkpoint: witness answered %d %s: %s: %s", e.Code, http.StatusText(e.Code), what, strings.TrimSpace(e.Body))
}

// AddCheckpoint submits the checkpoint cp of leaves to the witness with a
// consistency proof from oldSize. On success it returns cp with the
// witness's cosignature lines appended, after checking them with
// w.Verifier; other lines of the answer are dropped. A witness that last
// cosigned another size answers with *ConflictError.
func (w *Witness) AddCheckpoint(ctx context.Context, cp []byte, leaves []format.Digest, oldSize uint64) ([]byte, error) {
	req, err := NewRequest(cp, leaves, oldSize)
	if err != nil {
		return nil, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(w.URL, "/")+"/add-checkpoint", bytes.NewReader(req.Marshal()))
	if err != nil {
		return nil, err
	}
	c := w.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxNoteBytes))
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusConflict:
		s := strings.TrimSuffix(string(body), "\n")
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("checkpoint: witness answered 409 without a size: %q", s)
		}
		return nil, &ConflictError{Size: n}
	default:
		return nil, &StatusError{Code: resp.StatusCode, Body: string(body)}
	}
	return w.keepCosignature(cp, body)
}

// keepCosignature checks the witness's answer and returns cp with the
// witness's own signature lines appended.
func (w *Witness) keepCosignature(cp, answer []byte) ([]byte, error) {
	if !bytes.HasSuffix(answer, []byte("\n")) {
		return nil, fmt.Errorf("checkpoint: witness answer is not signature lines: %q", answer)
	}
	var mine []byte
	prefix := "— " + w.Verifier.Name() + " "
	for _, l := range strings.SplitAfter(string(answer), "\n") {
		if strings.HasPrefix(l, prefix) {
			mine = append(mine, l...)
		}
	}
	withSigs, err := AddSignatures(cp, mine)
	if err != nil {
		return nil, err
	}
	n, err := note.Open(withSigs, note.VerifierList(w.Verifier))
	if err != nil || !signedBy(n, w.Verifier) {
		return nil, fmt.Errorf("checkpoint: the witness's answer holds no valid cosignature by %s: %v", keyID(w.Verifier), err)
	}
	return withSigs, nil
}

// Cosign submits cp to the witness as AddCheckpoint does, starting from
// oldSize; if the witness last cosigned another size no larger than cp's,
// it submits once more with the proof from that size.
func (w *Witness) Cosign(ctx context.Context, cp []byte, leaves []format.Digest, oldSize uint64) ([]byte, error) {
	out, err := w.AddCheckpoint(ctx, cp, leaves, oldSize)
	var conflict *ConflictError
	if !errors.As(err, &conflict) {
		return out, err
	}
	if conflict.Size > uint64(len(leaves)) {
		return nil, fmt.Errorf("checkpoint: the witness last cosigned size %d, more than this checkpoint's %d: it saw a later checkpoint of this log (submit that one or a newer)", conflict.Size, len(leaves))
	}
	return w.AddCheckpoint(ctx, cp, leaves, conflict.Size)
}

// Cosign returns the signed checkpoint cp with a signature line by s
// appended: what a witness adds once it has checked cp (its signatures,
// and its consistency with the last checkpoint it cosigned). s is a
// cosignature/v1 signer (ReadCosigner); cp is not verified here.
func Cosign(cp []byte, s note.Signer) ([]byte, error) {
	text, _, found := cutLast(cp, "\n\n")
	if !found {
		return nil, fmt.Errorf("%w: not a signed note", ErrMalformed)
	}
	signed, err := note.Sign(&note.Note{Text: string(text) + "\n"}, s)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: cosign: %w", err)
	}
	_, sig, _ := cutLast(signed, "\n\n")
	return AddSignatures(cp, sig)
}
