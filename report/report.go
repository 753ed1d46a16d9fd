// Package report renders a verified log, or a verified disclosure bundle,
// as one self-contained HTML page for people: the forensic report of
// "afr report" (docs/REPORT.md is the reader's guide).
//
// The page carries everything inline — CSS, vanilla JavaScript (the files
// of page/, in one function's scope), SVG for the causal graph, and its
// data — and loads nothing from the network. It shows the verdict and every
// finding (each one leading to the events it names), lanes per agent or per
// run (zoom, brush a time range, click an event), a timeline of the events
// with each epoch's anchor status, filters by kind, agent, run, tool,
// status and time, a search through the rows and the payloads, a waterfall
// column, an order by the trace tree from parent links, export of the
// rows shown as JSON Lines or CSV, each event's payload, the input and
// output panes of its call, the unified diff of a file edit (edits.go),
// the decoded on-chain call with its transaction, gas and effects, the
// event's inclusion proof, and, when asked, the causal graph of one event.
//
// Tool calls are paired (callsOf): an intent, the policy decision and
// approval that follow it and its outcome make one call, with a status, a
// start and a duration; every row names its call, "one row per call" folds
// a call into its intent's row. Every row says whether its event was
// imported (ext "import") or observed. An event's time is the source's
// (event_time) when it has one, else the recorder's.
//
// The page scales to hundreds of thousands of events. Its data is embedded
// once, packed (JSON, DEFLATE, base64: see pack): the rows' columns (those
// that grow by small steps as differences from the row before) and the
// first block of their summaries before the page's script; the other
// blocks of summaries (whatBlock rows each, decoded when a row of theirs is
// drawn), then the details (payloads, diffs and each epoch's leaves) after
// it. The script draws only the rows in view (a virtual list) and shows one
// event at a time in a detail pane, where the event's RFC 6962 audit path
// is read off its epoch's tree — built once per epoch from the epoch's
// leaves with the browser's SHA-256 — and checked against the epoch's
// Merkle root (a bundle's events carry the bundle's paths, checked the
// same way).
//
// Every string an agent supplied (tool names, arguments, outputs, payload
// text) is attacker-controlled. The server-rendered parts (findings, the
// causal graph, the filters) are built with html/template, whose
// contextual escaping makes each one text, never markup or script, placed
// only in element text and quoted attribute values; the data elements hold
// base64 only; the script places every decoded string with textContent. A
// CSV export quotes a cell a spreadsheet would read as a formula.
//
// The page's structure is a contract for tools and tests that read it
// (internal/browser/pagetests checks it in a browser):
//
//   - section#verdict[data-verdict=verified|tampered|incomplete], with
//     ul#findings holding one li.finding[data-kind] per finding, with
//     data-seq and a button.goto when it names an event;
//   - div#summary[data-events][data-epochs];
//   - one select[data-filter=kind|agent|run|tool|status] per filter, the
//     search input#f-text, select#f-view (time, tree, agent, run),
//     input#f-calls (one row per call), select#f-lanes (agent, run),
//     buttons #export-jsonl and #export-csv;
//   - div#lane-labels with one .lane[data-lane] per lane, and
//     canvas#lanes[data-lanes][data-v0][data-v1] (the time window in view,
//     milliseconds after the first event);
//   - div#timeline[data-rows] (the events that pass the filters;
//     data-from and data-to while a time range is brushed), of which the
//     rows in view are .event[data-seq][data-kind][data-agent][data-run]
//     [data-tool][data-status][data-origin=imported|observed] elements of
//     the scrolling #rows (with data-depth in the tree order), each with
//     span.call, span.wf (its waterfall bar, i.bar[data-ms], or a tick),
//     span.what, and .badge.flag per finding that names it;
//   - window.afrShow(seq), which scrolls to an event, marks its row
//     .selected and shows it in section#detail[data-seq], which gets
//     data-loaded="1" with its payload (pre.payload), its call's panes
//     (div.io with pre.input and pre.output), pre.diff for an edit,
//     div.chain for an on-chain call, and its proof
//     (div.proof[data-verified=true|false]);
//   - window.afrExport("jsonl"|"csv"), a promise of the export's text;
//   - table#epochs, one tr.epoch[data-epoch][data-anchor=anchored|unanchored|mismatch|unsealed]
//     per epoch;
//   - with a causal event, svg#causal with one g.node[data-seq] per event
//     of the chain and one path.edge[data-from][data-to] per link;
//   - the performance marks "afr-script", "afr-data" (the rows decoded) and
//     "afr-rows" (the timeline first drawn).
package report

import (
	"errors"
	"html/template"
	"io"
	"time"

	"embed"

	"github.com/agentflightrecorder/afr/verifier"
)

// Input is what a report shows.
type Input struct {
	// Title heads the page (default "AFR forensic report").
	Title string
	// Report is the verification of the log or bundle (required).
	Report *verifier.Report
	// Index holds the events to show. For a bundle it may be nil: it is
	// then built from Bundle.
	Index *verifier.Index
	// Bundle, when set, says the report is of this disclosure bundle: the
	// inclusion proofs shown are the bundle's, and epochs are judged one by
	// one (a bundle holds some epochs of a log, not a prefix).
	Bundle *verifier.Bundle
	// Causal is the event whose causal chain to draw; nil for none.
	Causal *uint64
	// Anchors says where the anchors came from, shown in the banner.
	Anchors string
	// Generated is when the report was made (default now).
	Generated time.Time
}

//go:embed page.html
var pageHTML string

// The page's script, in parts: decoding the data, checking proofs, the
// lanes, and the timeline with its detail pane (which starts it all).
//
//go:embed page/unpack.js page/proof.js page/lanes.js page/report.js
var scripts embed.FS

var page = template.Must(template.New("page").Parse(pageHTML))

// script is the page's script: its parts in one function's scope.
var script = func() template.JS {
	s := "(function(){\n'use strict';\n"
	for _, name := range []string{"unpack.js", "proof.js", "lanes.js", "report.js"} {
		b, err := scripts.ReadFile("page/" + name)
		if err != nil {
			panic(err)
		}
		s += string(b)
	}
	return template.JS(s + "})();")
}()

// Write verifies nothing: it renders in, as verified by its caller, to w.
func Write(w io.Writer, in Input) error {
	if in.Report == nil {
		return errors.New("report: no verification report to show (verify the log or bundle first)")
	}
	if in.Index == nil {
		if in.Bundle == nil {
			return errors.New("report: no events to show: give an Index or a Bundle")
		}
		in.Index = verifier.IndexBundle(in.Bundle)
	}
	v, err := build(in)
	if err != nil {
		return err
	}
	return page.Execute(w, v)
}
