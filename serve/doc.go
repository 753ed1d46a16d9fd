// Package serve is AFR's recorder daemon (afr serve): the one long-lived
// writer of a log, behind a local HTTP API that agents in any language call
// instead of linking the recorder or feeding afr record's standard input.
//
// The API (docs/SERVE.md) appends one event (POST /v1/events) or a batch
// (POST /v1/events:batch, a JSON array or JSON Lines), each in the event
// JSON of docs/SPEC.md parsed by format.ParseEventJSON as afr record parses
// a line, and answers with the recorder's receipts (seq, clock, epoch,
// digest — the event id) only once the events are durable under the log's
// sync policy. GET /v1/status reports the recorder's position and, with
// in-process anchoring, the unanchored window; GET /v1/proof/{seq} the
// inclusion proof afr proof prints.
//
// A bad event is a 400 whose body names the event (its index and line in a
// batch) and what is wrong; every event of a request is checked before any
// is appended, so a refused request recorded nothing. Requests carry a
// bearer token (compared in constant time) from a token file created with
// mode 0600; the daemon listens on loopback unless told otherwise; headers,
// bodies, answers and idle connections are bounded in time, connections
// and the bytes of bodies held in number, and appends wait for a slot in a
// queue fair between connections (Limits). A write failure of the recorder,
// or its log removed or replaced, is sticky: every later append gets 503
// with the reason, and only durable events ever get receipts.
//
// Start opens the log (holding its writer lock, so a second daemon or afr
// record fails with *recorder.LockedError) and, given Anchoring, runs an
// anchor.Anchorer on the recorder's Sealed channel; Shutdown stops
// accepting, lets requests in flight finish, seals the open epoch and
// closes the log, then gives the anchorer a bounded time to confirm the
// last epochs. NewHandler is the API alone, over a recorder the caller
// opened.
package serve
