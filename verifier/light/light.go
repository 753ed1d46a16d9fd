// Package light is the light verifier as a web page calls it: bytes and
// JSON in, JSON out. The page's WebAssembly (verifier/wasm) merely wraps
// these functions, and the native tests call the very same ones, so what
// the page shows is what `afr verify --bundle … --show` reports.
//
// It imports only package verifier, format and the standard library: no
// part of go-ethereum, so the WebAssembly stays small enough to embed. The
// one piece of Ethereum it needs — decoding EpochAnchor's Anchored events
// from an eth_getLogs answer — is AnchorsFromLogs, a minimal ABI decoding of
// that single event, tested to agree with go-ethereum's decoder
// (chain.FilterAnchored, through verifier/onchain) on a real chain.
package light

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
)

// Result is what VerifyBundleJSON returns, as JSON: the verdict, the
// payload level it was reached at, the report (findings and counts, as
// `afr verify --json` writes it) and the disclosed events.
type Result struct {
	Verdict verifier.Verdict `json:"verdict"`
	Level   string           `json:"level"`
	Report  *verifier.Report `json:"report"`
	Events  []Event          `json:"events"`
}

// Event is one disclosed event whose record decodes: its envelope fields
// and, when the bundle's key opened it, its payload.
type Event struct {
	Seq     uint64          `json:"seq"`
	Time    int64           `json:"time"` // Unix nanoseconds, as recorded
	Kind    string          `json:"kind"`
	Tool    string          `json:"tool"`
	Group   string          `json:"group,omitempty"`
	Payload *format.Payload `json:"payload,omitempty"`
}

// Levels are the payload levels VerifyBundleJSON accepts, as afr verify
// --level names them.
var Levels = map[string]verifier.PayloadLevel{"skip": verifier.PayloadsSkip, "digest": verifier.PayloadsDigest, "open": verifier.PayloadsOpen}

// VerifyBundleJSON decodes a disclosure bundle, verifies it against the
// anchors (the content of an anchors file, docs/SPEC.md "Anchors file";
// empty for none, which makes the verdict at best incomplete) at a payload
// level — "skip", "digest", "open", or "" for the strongest the bundle
// allows: open if every event carries its key, digest if every event
// carries its payload, else skip — and returns the Result as JSON. An
// error means no verdict could be reached: the bundle or the anchors do
// not decode, or the level is unknown.
func VerifyBundleJSON(bundle, anchorsJSON []byte, level string) (string, error) {
	b, err := verifier.DecodeBundle(bundle)
	if err != nil {
		return "", fmt.Errorf("%w (is this a disclosure bundle written by afr disclose?)", err)
	}
	var anchors verifier.AnchorSource
	if len(anchorsJSON) > 0 {
		as, err := format.ParseAnchors(anchorsJSON)
		if err != nil {
			return "", err
		}
		anchors = verifier.AnchorList(as)
	}
	if level == "" {
		level = strongestLevel(b)
	}
	pl, ok := Levels[level]
	if !ok {
		return "", fmt.Errorf("payload level %q: want skip, digest or open", level)
	}
	br, err := verifier.VerifyBundle(context.Background(), b, anchors, verifier.Options{Payloads: pl})
	if err != nil {
		return "", err
	}
	res := Result{Verdict: br.Verdict, Level: level, Report: &br.Report, Events: []Event{}}
	for _, ev := range b.Events {
		e, err := format.DecodeEnvelope(ev.Record)
		if err != nil {
			continue // a finding of the report
		}
		res.Events = append(res.Events, Event{Seq: e.Seq, Time: e.Time, Kind: e.Kind.String(), Tool: e.Tool, Group: e.Group, Payload: br.Payloads[e.Seq]})
	}
	out, err := json.Marshal(res)
	return string(out), err
}

// strongestLevel is the payload level a bundle's contents allow.
func strongestLevel(b *verifier.Bundle) string {
	payloads, keys := len(b.Events) > 0, len(b.Events) > 0
	for _, ev := range b.Events {
		payloads = payloads && len(ev.Payload) > 0
		keys = keys && len(ev.Key) > 0
	}
	switch {
	case payloads && keys:
		return "open"
	case payloads:
		return "digest"
	}
	return "skip"
}
