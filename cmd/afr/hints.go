package main

import (
	"errors"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/importer"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/serve"
	"github.com/agentflightrecorder/afr/verifier"
)

// hints say what to try about an error of the library, in the terms of
// this command: the library's errors are sentinels and typed errors that
// name no flag or command, and the hints that do are all here. The first
// that matches an error gives its hint.
var hints = []func(error) string{
	is(recorder.ErrNotALog, "--log names the directory afr record wrote"),
	as(func(*recorder.DamagedTailError) string {
		return "a machine crash can leave damage in writes that were never acknowledged; verify a copy of the log with afr verify, then reopen with afr seal --repair to cut the damaged tail"
	}),
	as(func(*recorder.BrokenChainError) string { return "afr verify says where" }),
	as(func(*recorder.LostEventsError) string {
		return "the log holds less than its writer acknowledged; verify a copy with afr verify, then afr seal --repair continues it from what is left"
	}),
	as(func(e *anchor.ContractError) string {
		if e.Err == nil {
			return "afr deploy"
		}
		return "deploy it again with afr deploy"
	}),
	as(func(*verifier.UnsealedError) string { return "afr seal" }),
	as(func(*serve.UnreachableError) string { return "is afr serve running there?" }),
	as(func(*serve.NotLoopbackError) string {
		return "listen on 127.0.0.1, or give --allow-remote and put TLS in front"
	}),
	as(func(e *importer.ShapeError) string {
		switch e.Other {
		case "swe-agent":
			return "a SWE-agent trajectory is imported with afr import swe-agent"
		case "openhands":
			return "an OpenHands event stream is imported with afr import openhands"
		}
		return ""
	}),
	as(func(*checkpoint.OriginError) string {
		return "if the operator publishes under another prefix, give it: --origin-prefix"
	}),
	as(func(*checkpoint.KeyError) string { return "afr checkpoint keygen writes such keys" }),
	as(func(*checkpoint.LeavesMissingError) string { return "afr checkpoint writes them beside it" }),
	is(checkpoint.ErrDamagedLog, "afr verify says where"),
	is(checkpoint.ErrWouldFork, "afr verify against the previous checkpoint says where"),
	is(format.ErrNewerVersion, "a newer afr wrote it: upgrade afr"),
}

// findingHints say what to try about a verifier finding of a kind.
var findingHints = map[verifier.FindingKind]string{
	verifier.KindBundleEmpty: "afr disclose --seq",
}

// withHint is err's message followed by the hint for it, if there is one.
func withHint(err error) string {
	for _, h := range hints {
		if s := h(err); s != "" {
			return err.Error() + " (hint: " + s + ")"
		}
	}
	return err.Error()
}

// findingLine is a finding as printed, followed by the hint for its kind,
// if there is one.
func findingLine(f verifier.Finding) string {
	if h, ok := findingHints[f.Kind]; ok {
		return f.String() + " (hint: " + h + ")"
	}
	return f.String()
}

// is is the hint for errors that wrap target.
func is(target error, hint string) func(error) string {
	return func(err error) string {
		if errors.Is(err, target) {
			return hint
		}
		return ""
	}
}

// as is the hint for errors that wrap an E, given by hint.
func as[E error](hint func(E) string) func(error) string {
	return func(err error) string {
		var e E
		if errors.As(err, &e) {
			return hint(e)
		}
		return ""
	}
}
