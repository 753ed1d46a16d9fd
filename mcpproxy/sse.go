package mcpproxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// sseEvent is one block of a text/event-stream, the fields up to the
// blank line that ends it, as the event stream interpretation of the
// WHATWG HTML standard ("Server-sent events", 9.2.6) reads them.
type sseEvent struct {
	Type    string // the last event field ("" when none: a message)
	Data    []byte // the data fields' values joined by LF
	HasData bool   // a data field was seen (the event is dispatched)
	ID      string // the last id field without NUL, when HasID
	HasID   bool
	Retry   string // the last retry field made of ASCII digits ("" when none)
	Invalid []byte // the block's first line that is not UTF-8 (nil: none): the block is not relayed
}

// message reports whether the block is dispatched as a message event, the
// only kind that carries a JSON-RPC message in MCP's streamable HTTP.
func (e *sseEvent) message() bool { return e.HasData && (e.Type == "" || e.Type == "message") }

// eventTooLargeError says that an event stream's block grew past the
// bound of one message; Head is what was read of the line that crossed it.
type eventTooLargeError struct {
	Max  int
	Head []byte
}

func (e *eventTooLargeError) Error() string {
	return fmt.Sprintf("an event of the stream is larger than the limit of %d bytes", e.Max)
}

// readEvents reads a text/event-stream as the standard says: one leading
// UTF-8 byte order mark stripped; lines ended by CRLF, LF or CR; lines
// starting with a colon are comments; a field's value follows its name's
// first colon less one leading space; data values are joined by LF; a
// blank line ends the block. It calls fn with every block (also one
// without data, which sets the last event id) and returns nil at the
// stream's end, where an unfinished block is discarded, or the first read
// error. A block longer than max bytes is an *eventTooLargeError.
func readEvents(r io.Reader, max int, fn func(*sseEvent)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(3); err == nil && string(b) == "\uFEFF" {
		br.Discard(3)
	}
	var (
		ev     sseEvent
		line   []byte
		size   int
		skipLF bool // the last line ended with CR: an LF next is part of its end
	)
	for {
		c, err := br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if skipLF {
			skipLF = false
			if c == '\n' {
				continue
			}
		}
		if c != '\r' && c != '\n' {
			if size++; size > max {
				return &eventTooLargeError{Max: max, Head: line}
			}
			line = append(line, c)
			continue
		}
		skipLF = c == '\r'
		if len(line) == 0 {
			fn(&ev)
			ev, size = sseEvent{}, 0
			continue
		}
		ev.field(line)
		line = line[:0]
	}
}

// field applies one non-blank line to the block.
func (e *sseEvent) field(line []byte) {
	if !utf8.Valid(line) {
		if e.Invalid == nil {
			e.Invalid = bytes.Clone(line)
		}
		return
	}
	if line[0] == ':' {
		return // a comment
	}
	name, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(name) {
	case "event":
		e.Type = string(value)
	case "data":
		if e.HasData {
			e.Data = append(e.Data, '\n')
		}
		e.Data = append(e.Data, value...)
		e.HasData = true
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			e.ID, e.HasID = string(value), true
		}
	case "retry":
		if len(value) > 0 && strings.Trim(string(value), "0123456789") == "" {
			e.Retry = string(value)
		}
	}
}

// appendEvent serialises a block with data as its one data line (nil:
// none), in the form every reader of event streams agrees on: LF line
// ends, one space after each colon, a blank line at the end. It returns
// nil for a block with nothing a client keeps.
func appendEvent(b []byte, e *sseEvent, data []byte) []byte {
	if !e.HasID && e.Retry == "" && data == nil {
		return nil
	}
	if e.HasID {
		b = append(append(append(b, "id: "...), e.ID...), '\n')
	}
	if e.Retry != "" {
		b = append(append(append(b, "retry: "...), e.Retry...), '\n')
	}
	if data != nil {
		b = append(append(append(b, "event: message\ndata: "...), data...), '\n')
	}
	return append(b, '\n')
}
