package format

import "github.com/agentflightrecorder/afr/internal/strictjson"

// BlankLine reports whether line, one line of a JSON-lines document (afr
// record's input, an event JSON file of afr import, the batches file), is
// blank: JSON white space alone (space, tab, CR, LF), which every reader
// of such a document skips. Any other line is a document or malformed; a
// line holding U+00A0 or U+0085 is not blank (docs/SPEC.md, "Event JSON").
func BlankLine(line []byte) bool { return len(strictjson.TrimSpace(line)) == 0 }
