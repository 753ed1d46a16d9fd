// Package cachefile implements what AFR's JSON cache files have in common: the
// evm fork cache ("Fork cache" in docs/SPEC.md) and the tracesim block file
// ("Tracesim output") are each one JSON object that readers decode strictly
// (no unknown fields, no trailing data) and whose format, version and
// chain_id fields are checked before anything else, and that writers replace
// atomically and durably.
package cachefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agentflightrecorder/afr/internal/durable"
)

// Decode decodes data, which must hold exactly one JSON object, into v.
// Unknown fields are an error (wrapped, after "decode: "), and so is anything
// but white space after the object; object names it in that error
// ("trailing data after the cache object").
func Decode(data []byte, v any, object string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing data after the %s object", object)
	}
	return nil
}

// Format is the format name and the one version a reader supports.
type Format struct {
	Name    string
	Version int
}

// Check checks a decoded file's header fields: format must be f.Name,
// version f.Version, and chainID non-zero. The errors name the field.
func (f Format) Check(format string, version int, chainID uint64) error {
	if format != f.Name {
		return fmt.Errorf("format is %q, want %q", format, f.Name)
	}
	if version != f.Version {
		return fmt.Errorf("version %d is not supported (want %d)", version, f.Version)
	}
	if chainID == 0 {
		return errors.New("chain_id is missing or zero")
	}
	return nil
}

// Write creates path's directory if need be and replaces path with data
// atomically and durably (durable.WriteFile), readable by the owner only.
func Write(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return durable.WriteFile(path, data, 0o600)
}
