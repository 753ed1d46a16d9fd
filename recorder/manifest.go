package recorder

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	var m Manifest
	if err := strictjson.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("recorder: %s/MANIFEST: %w", dir, err)
	}
	if m.Format != manifestFormat {
		return nil, fmt.Errorf("recorder: %s is not an AFR log (format %q)", dir, m.Format)
	}
	if m.Version > format.Version {
		return nil, fmt.Errorf("recorder: %s: %w: version %d, this build reads up to %d", dir, format.ErrNewerVersion, m.Version, format.Version)
	}
	if m.Version < 1 {
		return nil, fmt.Errorf("recorder: %s/MANIFEST: version %d", dir, m.Version)
	}
	return &m, nil
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
