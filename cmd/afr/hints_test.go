package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/importer"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/serve"
	"github.com/agentflightrecorder/afr/verifier"
)

// The library's errors name no flag or command; printed by afr, they end
// with the hint that does, wrapped as the commands wrap them.
func TestHints(t *testing.T) {
	addr := common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w: log has no MANIFEST, records, epochs or payloads", recorder.ErrNotALog),
			"recorder: not an AFR log: log has no MANIFEST, records, epochs or payloads (hint: --log names the directory afr record wrote)"},
		{&recorder.DamagedTailError{Dir: "log", Err: errors.New("checksum mismatch")},
			"recorder: open log: checksum mismatch (hint: a machine crash can leave damage in writes that were never acknowledged; verify a copy of the log with afr verify, then reopen with afr seal --repair to cut the damaged tail)"},
		{fmt.Errorf("recorder: open log: %w", &recorder.BrokenChainError{Record: 5, Seq: 4}),
			"recorder: open log: record 5: does not continue the chain (seq 4); the store is damaged (hint: afr verify says where)"},
		{&anchor.ContractError{Contract: addr, ChainID: 31337},
			"anchor: no contract at " + addr.Hex() + " on chain 31337 (hint: afr deploy)"},
		{&anchor.ContractError{Contract: addr, ChainID: 31337, Err: errors.New("execution reverted")},
			"anchor: the contract at " + addr.Hex() + " is not EpochAnchor version 2 (one head per operator and log id): execution reverted (hint: deploy it again with afr deploy)"},
		{&verifier.UnsealedError{Seq: 7}, "verifier: event 7 is not in a sealed epoch (hint: afr seal)"},
		{&serve.UnreachableError{URL: "http://127.0.0.1:1", Err: errors.New("connection refused")},
			"serve: the daemon at http://127.0.0.1:1: connection refused (hint: is afr serve running there?)"},
		{&serve.NotLoopbackError{Addr: "0.0.0.0:8787"},
			`serve: "0.0.0.0:8787" is not a loopback address: other hosts could reach the API (hint: listen on 127.0.0.1, or give --allow-remote and put TLS in front)`},
		{&importer.StepError{File: "run.json", Step: -1, Err: &importer.ShapeError{Shape: "an object", Want: "an OpenHands event stream (an array of events)", Other: "swe-agent"}},
			"run.json: the top level is an object, want an OpenHands event stream (an array of events) (hint: a SWE-agent trajectory is imported with afr import swe-agent)"},
		{&importer.StepError{File: "run.traj", Step: -1, Err: &importer.ShapeError{Shape: "an array", Want: "a SWE-agent trajectory object", Other: "openhands"}},
			"run.traj: the top level is an array, want a SWE-agent trajectory object (hint: an OpenHands event stream is imported with afr import openhands)"},
		{&importer.StepError{File: "run.traj", Step: -1, Err: &importer.ShapeError{Shape: "a string", Want: "a SWE-agent trajectory object"}},
			"run.traj: the top level is a string, want a SWE-agent trajectory object"},
		{fmt.Errorf("checkpoint cp: %w", &checkpoint.OriginError{Origin: "b.example/00", Want: "a.example/00"}),
			`checkpoint cp: checkpoint: witness policy not met: origin "b.example/00" is not the origin this verifier accepts for the log ("a.example/00"): a second origin for one log could carry a second, separately witnessed history (hint: if the operator publishes under another prefix, give it: --origin-prefix)`},
		{&checkpoint.KeyError{Signer: true, Key: "op.key", Err: errors.New("malformed")},
			"checkpoint: op.key is not an Ed25519 note signer key (malformed): want PRIVATE+KEY+name+hash+key (hint: afr checkpoint keygen writes such keys)"},
		{&checkpoint.LeavesMissingError{Checkpoint: "cp", Err: errors.New("no such file")},
			"checkpoint cp: its leaves cp.leaves.json are missing: no such file (hint: afr checkpoint writes them beside it)"},
		{fmt.Errorf("%w: leaf 1", checkpoint.ErrDamagedLog), "checkpoint: the log's epoch chain is damaged: leaf 1 (hint: afr verify says where)"},
		{fmt.Errorf("%w: the log was rewritten", checkpoint.ErrWouldFork),
			"checkpoint: the log does not extend the previous checkpoint: the log was rewritten (hint: afr verify against the previous checkpoint says where)"},
		{fmt.Errorf("recorder: log: %w: version 9, this build reads up to 3", format.ErrNewerVersion),
			"recorder: log: written by a newer format version: version 9, this build reads up to 3 (hint: a newer afr wrote it: upgrade afr)"},
		{errors.New("no hint for this one"), "no hint for this one"},
	} {
		if got := withHint(tc.err); got != tc.want {
			t.Errorf("withHint(%T)\n got %s\nwant %s", tc.err, got, tc.want)
		}
	}
	f := verifier.Finding{Kind: verifier.KindBundleEmpty, Class: verifier.ClassIncomplete, Detail: "the bundle discloses no events: nothing is verified"}
	if got, want := findingLine(f), "bundle_empty (incomplete): the bundle discloses no events: nothing is verified (hint: afr disclose --seq)"; got != want {
		t.Errorf("findingLine\n got %s\nwant %s", got, want)
	}
}
