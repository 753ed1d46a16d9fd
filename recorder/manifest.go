package recorder

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/durable"
	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// Manifest returns the store's identity.
func (r *Recorder) Manifest() Manifest { return r.man }

// Manifest identifies a store. It is the file MANIFEST (JSON) in the store
// directory; see docs/SPEC.md, "Store layout".
type Manifest struct {
	Format    string           `json:"format"` // "afr-log"
	Version   int              `json:"version"`
	Recorder  string           `json:"recorder"`
	Session   format.SessionID `json:"session"`
	Encrypted bool             `json:"encrypted"`
	Created   time.Time        `json:"created"`
}

const manifestFormat = "afr-log"

// ReadManifest reads and checks the manifest of the store in dir.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "MANIFEST"))
	if err != nil {
		return nil, fmt.Errorf("recorder: reading the manifest: %w", err)
	}
	m, err := parseManifest(b)
	if err != nil {
		return nil, fmt.Errorf("recorder: %s/MANIFEST: %w", dir, err)
	}
	return m, nil
}

// parseManifest reads the content of a MANIFEST as docs/SPEC.md says:
// format "afr-log", a version this build reads, and then every field
// present and not null (a MANIFEST without a session is unreadable, not
// one naming session zero), the session as 32 lowercase hex digits;
// unknown fields are ignored.
func parseManifest(b []byte) (*Manifest, error) {
	var doc struct {
		Format    *string           `json:"format"`
		Version   *int              `json:"version"`
		Recorder  *string           `json:"recorder"`
		Session   *format.SessionID `json:"session"`
		Encrypted *bool             `json:"encrypted"`
		Created   *time.Time        `json:"created"`
	}
	if err := strictjson.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	switch {
	case doc.Format == nil || *doc.Format != manifestFormat:
		return nil, fmt.Errorf("not an AFR log (format %s, want %q)", show(doc.Format), manifestFormat)
	case doc.Version == nil:
		return nil, errors.New("version is required (and not null)")
	case *doc.Version > format.Version:
		return nil, fmt.Errorf("%w: version %d, this build reads up to %d", format.ErrNewerVersion, *doc.Version, format.Version)
	case *doc.Version < 1:
		return nil, fmt.Errorf("version %d", *doc.Version)
	}
	for _, f := range []struct {
		name    string
		present bool
	}{{"recorder", doc.Recorder != nil}, {"session", doc.Session != nil}, {"encrypted", doc.Encrypted != nil}, {"created", doc.Created != nil}} {
		if !f.present {
			return nil, fmt.Errorf("%s is required (and not null)", f.name)
		}
	}
	return &Manifest{Format: *doc.Format, Version: *doc.Version, Recorder: *doc.Recorder, Session: *doc.Session,
		Encrypted: *doc.Encrypted, Created: *doc.Created}, nil
}

// show quotes a string field of a MANIFEST, or says it is missing.
func show(s *string) string {
	if s == nil {
		return "missing"
	}
	return strconv.Quote(*s)
}

// MaxRecorderID is the length in bytes of the longest recorder id a store
// can have: the longest with which every epoch header fits
// format.MaxHeaderSize, whatever its epoch number, first sequence number,
// count and time (docs/SPEC.md, "Limits").
const MaxRecorderID = 854

// checkRecorderID checks that id can be written into every record and
// epoch header (as CBOR text) and into MANIFEST (as JSON).
func checkRecorderID(id string) error {
	if len(id) > MaxRecorderID {
		return fmt.Errorf("recorder: recorder id is %d bytes, limit %d (the epoch header must fit %d bytes): %w", len(id), MaxRecorderID, format.MaxHeaderSize, format.ErrLimit)
	}
	if !utf8.ValidString(id) {
		return fmt.Errorf("recorder: recorder id %q is not valid UTF-8", id)
	}
	return nil
}

// loadOrCreateManifest reads the manifest of dir, or writes a new one for
// o.Recorder, which Open has checked.
func loadOrCreateManifest(dir string, o *Options) (*Manifest, error) {
	m, err := ReadManifest(dir)
	if err == nil {
		if o.Recorder != "" && o.Recorder != m.Recorder {
			return nil, fmt.Errorf("recorder: %s belongs to recorder %q, not %q", dir, m.Recorder, o.Recorder)
		}
		if err := checkRecorderID(m.Recorder); err != nil {
			return nil, fmt.Errorf("%w (hint: the log can still be read and verified; record into a new log)", err)
		}
		return m, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if o.Recorder == "" {
		return nil, fmt.Errorf("recorder: creating %s: Options.Recorder (the operator id) is required", dir)
	}
	m = &Manifest{Format: manifestFormat, Version: o.FormatVersion, Recorder: o.Recorder, Session: o.Session, Encrypted: o.Encrypt, Created: o.Now().UTC()}
	if m.Session == (format.SessionID{}) {
		if _, err := io.ReadFull(o.Rand, m.Session[:]); err != nil {
			return nil, err
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return m, durable.WriteFile(filepath.Join(dir, "MANIFEST"), append(b, '\n'), 0o600)
}
