package replica

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/agentflightrecorder/afr/internal/durable"
	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// StatusFile is the file in the log directory where a replicator keeps
// its status, for afr status: it is never copied.
const StatusFile = "replica.json"

// Status is how far a replica is behind its log: what afr status and the
// daemon's /v1/status report (docs/SERVE.md).
type Status struct {
	URL   string `json:"url"`
	Every string `json:"every"` // "epoch" or "commit"
	// Events and Epochs are copied: the events whose records and
	// payloads, and the epochs whose headers, the replica holds.
	Events uint64 `json:"events"`
	Epochs uint64 `json:"epochs"`
	// DurableEvents and DurableEpochs are the log's durable mark at the
	// last look; the lag is their distance from what is copied.
	DurableEvents uint64 `json:"durable_events"`
	DurableEpochs uint64 `json:"durable_epochs"`
	LagEvents     uint64 `json:"lag_events"`
	LagEpochs     uint64 `json:"lag_epochs"`
	// BehindSince is when the replica last fell behind what it is to copy
	// (sealed epochs, or every durable event with Every "commit"),
	// absent when it is not behind.
	BehindSince *time.Time `json:"behind_since,omitempty"`
	Copied      time.Time  `json:"copied,omitzero"`  // when an object was last written
	Checked     time.Time  `json:"checked,omitzero"` // the last look at the log
	// Error is why the last look failed (it is retried); Conflict why
	// copying stopped: the log no longer extends its replica.
	Error    string `json:"error,omitempty"`
	Conflict string `json:"conflict,omitempty"`
	// KeysURL is where the log's key directory is copied, when asked
	// (afr replicate --keys-to); KeysCopied when it last changed there.
	KeysURL    string    `json:"keys_url,omitempty"`
	KeysCopied time.Time `json:"keys_copied,omitzero"`
}

// writeStatus replaces the status file of the log in dir.
func writeStatus(dir string, st Status) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return durable.WriteFile(filepath.Join(dir, StatusFile), append(b, '\n'), 0o600)
}

// ReadStatus reads the status a replicator of the log in dir last wrote;
// ok is false when none did.
func ReadStatus(dir string) (st Status, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, StatusFile))
	if errors.Is(err, os.ErrNotExist) {
		return Status{}, false, nil
	}
	if err != nil {
		return Status{}, false, err
	}
	if err := strictjson.Unmarshal(b, &st); err != nil {
		return Status{}, false, err
	}
	return st, true, nil
}
