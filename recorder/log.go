package recorder

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
)

// Log reads a store without changing it: for the verifier, for disclosure,
// and for queries. Unlike Open it repairs nothing; a torn tail or a damaged
// frame is returned as an error from the iteration that meets it.
type Log struct {
	// Dir is where the log is: its directory, or for a log opened with
	// OpenLogFS the name it was opened under (its replica's URL, say).
	Dir string
	// Manifest is the store's MANIFEST, zero when it is missing or
	// unreadable (ManifestIdentity returns why). Nothing protects it: the
	// log's identity is what its records commit to (Identity).
	Manifest    Manifest
	manifestErr error
	fsys        fs.FS       // the files; nil for a local directory
	mark        format.Mark // the durable mark, if marked
	marked      bool
}

// ErrNotALog is returned by OpenLog for a directory that holds no part of
// an AFR log (often a path that names some other directory than the one
// the log was written to).
var ErrNotALog = errors.New("recorder: not an AFR log")

// ErrNoIdentity is returned by Identity when no epoch header or record of
// the log decodes.
var ErrNoIdentity = errors.New("recorder: no decodable epoch header or record gives the log's identity")

// OpenLog opens the store in dir read-only. A missing or unreadable
// MANIFEST does not stop it (see ManifestIdentity): what the records
// commit to is checked by a verifier, not refused here.
func OpenLog(dir string) (*Log, error) {
	l := &Log{Dir: dir}
	m, err := ReadManifest(dir)
	if err == nil {
		l.Manifest = *m
		return l, l.readMark()
	}
	l.manifestErr = err
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("recorder: opening log: %w", err)
	}
	return l, l.findStreams()
}

// OpenLogFS opens read-only the store whose directory is the root of fsys,
// as OpenLog opens a local one: a log kept somewhere other than a local
// directory, such as its replica in object storage (package replica). name
// says where it is, in errors and in Log.Dir. fsys must report a missing
// file with an error wrapping fs.ErrNotExist.
func OpenLogFS(fsys fs.FS, name string) (*Log, error) {
	l := &Log{Dir: name, fsys: fsys}
	b, err := fs.ReadFile(fsys, "MANIFEST")
	if err == nil {
		var m *Manifest
		if m, err = parseManifest(b); err == nil {
			l.Manifest = *m
			return l, l.readMark()
		}
		err = fmt.Errorf("recorder: %s/MANIFEST: %w", name, err)
	} else {
		err = fmt.Errorf("recorder: reading the manifest: %w", err)
	}
	l.manifestErr = err
	return l, l.findStreams()
}

// findStreams checks that a log without a readable MANIFEST has one of
// its streams at least.
func (l *Log) findStreams() error {
	for _, name := range []string{"records", "epochs", "payloads"} {
		_, err := fs.Stat(l.files(), name)
		if err == nil {
			return l.readMark()
		}
		if !errors.Is(err, fs.ErrNotExist) {
			// No permission to look into dir, an I/O error: the
			// reader's, not a sign that dir is no log.
			return fmt.Errorf("recorder: opening log %s: %w", l.Dir, err)
		}
	}
	return fmt.Errorf("%w: %s has no MANIFEST, records, epochs or payloads", ErrNotALog, l.Dir)
}

// files returns the log's files as an fs.FS.
func (l *Log) files() fs.FS {
	if l.fsys != nil {
		return l.fsys
	}
	return segment.Dir(l.Dir)
}

func (l *Log) readMark() error {
	var err error
	l.mark, l.marked, err = readMarkFS(l.files(), MarkFile)
	return err
}

// Mark returns the log's durable mark (docs/SPEC.md, "Durable mark"), ok
// false when it has none.
func (l *Log) Mark() (m format.Mark, ok bool) { return l.mark, l.marked }

// ManifestIdentity returns the recorder and session the MANIFEST claims,
// or the error that kept it from being read (wrapping os.ErrNotExist when
// it is missing, format.ErrNewerVersion when it is of a newer version).
func (l *Log) ManifestIdentity() (recorder string, session format.SessionID, err error) {
	if l.manifestErr != nil {
		return "", format.SessionID{}, l.manifestErr
	}
	return l.Manifest.Recorder, l.Manifest.Session, nil
}

// Identity returns the recorder and session the log's evidence commits
// to: those of its first decodable epoch header or, with none, of its
// first decodable record, as the verifier takes them. Keys for reading
// payloads are derived for this session. It returns an error wrapping
// ErrNoIdentity when neither stream has one.
func (l *Log) Identity() (recorder string, session format.SessionID, err error) {
	found := errors.New("found")
	var errs []error
	for _, s := range []struct {
		read func(func(uint64, []byte) error) error
		id   func([]byte) (string, format.SessionID, error)
	}{{l.Epochs, headerIdentity}, {l.Records, recordIdentity}} {
		err := s.read(func(_ uint64, raw []byte) error {
			var derr error
			if recorder, session, derr = s.id(raw); derr == nil {
				return found
			}
			return nil
		})
		if errors.Is(err, found) {
			return recorder, session, nil
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return "", format.SessionID{}, errors.Join(append([]error{ErrNoIdentity}, errs...)...)
}

// LogID returns the id of the log its evidence commits to,
// format.LogID of Identity: what the operator anchors it under.
func (l *Log) LogID() (format.Digest, error) {
	rec, session, err := l.Identity()
	if err != nil {
		return format.Digest{}, err
	}
	return format.LogID(rec, session), nil
}

func headerIdentity(raw []byte) (string, format.SessionID, error) {
	h, err := format.DecodeEpochHeader(raw)
	if err != nil {
		return "", format.SessionID{}, err
	}
	return h.Recorder, h.Session, nil
}

func recordIdentity(raw []byte) (string, format.SessionID, error) {
	e, err := format.DecodeEnvelope(raw)
	if err != nil {
		return "", format.SessionID{}, err
	}
	return e.Recorder, e.Session, nil
}

// Records calls visit with each record's position and encoded bytes, in order.
func (l *Log) Records(visit func(seq uint64, raw []byte) error) error {
	return l.stream("records", visit)
}

// Payloads calls visit with each stored payload frame, in order.
func (l *Log) Payloads(visit func(seq uint64, frame []byte) error) error {
	return l.stream("payloads", visit)
}

// Epochs calls visit with each encoded epoch header, in order.
func (l *Log) Epochs(visit func(epoch uint64, raw []byte) error) error {
	return l.stream("epochs", visit)
}

// stream reads one stream, classifying damage under the durable mark when
// the log has one.
func (l *Log) stream(kind string, visit func(uint64, []byte) error) error {
	v := func(f segment.Frame) error { return visit(f.Index, f.Data) }
	dir := filepath.Join(l.Dir, kind)
	fsys := segment.Dir(dir)
	if l.fsys != nil {
		dir = l.Dir + "/" + kind
		var err error
		if fsys, err = fs.Sub(l.fsys, kind); err != nil {
			return err
		}
	}
	if !l.marked {
		return segment.ReadAllFS(fsys, dir, kind, v)
	}
	durable := l.mark.Events
	if kind == "epochs" {
		durable = l.mark.Epochs
	}
	return segment.ReadAllDurableFS(fsys, dir, kind, durable, v)
}

// InclusionProof builds the proof for record seq, which must be in a sealed
// epoch. It reads the log once.
func (l *Log) InclusionProof(seq uint64) (*format.InclusionProof, error) {
	var hdr []byte
	var h *format.EpochHeader
	err := l.Epochs(func(_ uint64, raw []byte) error {
		if h != nil {
			return nil
		}
		eh, err := format.DecodeEpochHeader(raw)
		if err != nil {
			return err
		}
		if seq >= eh.FirstSeq && seq < eh.FirstSeq+eh.Count {
			h, hdr = eh, raw
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if h == nil {
		return nil, fmt.Errorf("recorder: event %d is not in a sealed epoch", seq)
	}
	digests := make([]format.Digest, 0, h.Count)
	var rec []byte
	err = l.Records(func(s uint64, raw []byte) error {
		if s >= h.FirstSeq && s < h.FirstSeq+h.Count {
			digests = append(digests, format.RecordDigest(raw))
			if s == seq {
				rec = raw
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if uint64(len(digests)) != h.Count {
		return nil, fmt.Errorf("recorder: epoch %d has %d records on disk, header says %d", h.Epoch, len(digests), h.Count)
	}
	path, err := format.MerklePath(digests, seq-h.FirstSeq)
	if err != nil {
		return nil, err
	}
	return &format.InclusionProof{Record: rec, Header: hdr, Index: seq - h.FirstSeq, Path: path}, nil
}
