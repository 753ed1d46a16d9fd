package mcpproxy

// Reading and writing frames, and what a call's events are made of.

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// decode parses one frame as a single JSON-RPC message, read strictly
// (strictjson: one value, valid UTF-8, no two keys of an object equal or
// equal under case folding), so that its fields are those every peer
// reads; a batch is refused (MCP no longer has batches, and a call inside
// one would pass unrecorded).
//
// The id must be one every peer reads alike (checkID): the SDK reads a
// number id as a float64 truncated to an integer (7.5 as 7), which it
// then writes back as another id than the client sent.
func decode(frame []byte) (jsonrpc.Message, error) {
	frame = strictjson.TrimSpace(frame)
	if len(frame) > 0 && frame[0] == '[' {
		return nil, errors.New("JSON-RPC batches are not relayed")
	}
	var envelope struct {
		ID json.RawMessage `json:"id"`
	}
	if err := strictjson.Unmarshal(frame, &envelope); err != nil {
		return nil, err
	}
	if err := checkID(envelope.ID); err != nil {
		return nil, err
	}
	msg, err := jsonrpc.DecodeMessage(frame)
	if err != nil {
		return nil, err
	}
	// Compact as encode writes them, so that a digest is of the bytes sent.
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.Method == "" { // the SDK's encoding would drop it, making the message another
			return nil, errors.New("a request with an empty method")
		}
		m.Params, err = compact(m.Params)
	case *jsonrpc.Response:
		if m.Error != nil && m.Result != nil {
			// Readers disagree on which one a response is (the proxy records
			// the error, clients that test for "result" first act on it).
			return nil, errors.New("a response with both a result and an error")
		}
		m.Result, err = compact(m.Result)
	}
	return msg, err
}

// maxID is the largest magnitude of a number id: 2^53-1, the integers a
// float64 (the Go SDK's reading, and JavaScript's) holds exactly.
const maxID = 1<<53 - 1

// checkID accepts a JSON-RPC id (its JSON text; nil when absent) that every
// peer reads as the proxy does: null, a string, or an integer of at most
// 53 bits written without fraction, exponent or a minus zero. Others (7.5,
// 1e2, -0, 9007199254740993) are read by the Go SDK as another integer
// than a TypeScript or Python peer reads, and refused. Other JSON types
// are left to the SDK's decoder, which refuses them.
func checkID(raw json.RawMessage) error {
	s := string(raw)
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || strconv.FormatInt(n, 10) != s || n > maxID || n < -maxID {
		return fmt.Errorf("the id %s is not an integer of at most 53 bits written as one (nor a string)", s)
	}
	return nil
}

// compact is raw without whitespace between its tokens, its strings and
// numbers as written (what encoding/json's Compact writes, in one pass of
// the faster encoder), in a new slice: raw may share the frame's bytes.
func compact(raw json.RawMessage) (json.RawMessage, error) {
	if raw == nil {
		return nil, nil
	}
	b, err := jsontext.AppendFormat(nil, raw, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true), jsontext.PreserveRawStrings(true))
	return b, err
}

// encode is the wire form of a message that decode returned (or one built
// from its parts): the envelope re-encoded, params and result compact.
//
// A response's result, compact already, is not passed through the SDK's
// encoder, which would compact it again (a tool's output can be megabytes):
// the envelope is encoded with a one-byte placeholder result, which is then
// replaced by the result (the result is the envelope's last member).
func encode(msg jsonrpc.Message) []byte {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error == nil && len(resp.Result) > 0 {
		env := mustEncode(&jsonrpc.Response{ID: resp.ID, Result: json.RawMessage("0")})
		if head, ok := bytes.CutSuffix(env, []byte(`0}`)); ok && bytes.HasSuffix(head, []byte(`"result":`)) {
			b := make([]byte, 0, len(head)+len(resp.Result)+2) // and the transport's newline
			return append(append(append(b, head...), resp.Result...), '}')
		}
		// An SDK that orders the envelope otherwise: its encoder, slower.
	}
	return mustEncode(msg)
}

func mustEncode(msg jsonrpc.Message) []byte {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		panic("mcpproxy: encoding a decoded message: " + err.Error()) // its parts were read from JSON
	}
	return b
}

// marshal is JSON without HTML escapes, as the SDK writes messages.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// errorFrame is a JSON-RPC error response (without a newline, as encode's
// messages).
func errorFrame(id jsonrpc.ID, code int, msg string) []byte {
	wire := struct {
		Version string         `json:"jsonrpc"`
		ID      any            `json:"id"` // null when the request's id is unknown
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", id.Raw(), &jsonrpc.Error{Code: int64(code), Message: msg}}
	b, _ := json.Marshal(wire) // an integer or text id and two plain fields always encode
	return b
}

// parseArgs reads tool arguments (a JSON object) into intent args with
// integral numbers kept as integers, through the event JSON parser.
func parseArgs(tool string, raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	if bytes.TrimSpace(raw)[0] != '{' {
		return nil, fmt.Errorf("tools/call %s: arguments must be a JSON object", tool)
	}
	toolJSON, err := json.Marshal(tool)
	if err != nil {
		return nil, err
	}
	ev, err := format.ParseEventJSON([]byte(`{"tool":` + string(toolJSON) + `,"kind":"tool_call","payload":{"intent":{"tool":` + string(toolJSON) + `,"args":` + string(raw) + `}}}`))
	if err != nil {
		return nil, fmt.Errorf("tools/call %s: arguments: %w", tool, err)
	}
	return ev.Payload.Intent.Args, nil
}

func idText(id jsonrpc.ID) any {
	switch v := id.Raw().(type) {
	case int64:
		return v
	case string:
		return v
	}
	return nil
}

func contextOf(parents []uint64) *format.ContextProvenance {
	if len(parents) == 0 {
		return nil
	}
	return &format.ContextProvenance{Parents: parents}
}

func codeOf(server string) *format.CodeProvenance {
	if server == "" {
		return nil
	}
	return &format.CodeProvenance{ToolVersion: server}
}

func digest(b []byte) format.Bytes {
	if len(b) == 0 {
		return nil
	}
	sum := sha256.Sum256(b)
	return sum[:]
}

// outputText joins the text contents of a result (other contents are
// covered by the output digest only).
func outputText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// effectsOf names the side effects a successful call is known to have:
// the reference filesystem server's write_file (the written content's
// digest), edit_file (the path; not in dry-run) and move_file.
func effectsOf(tool string, args map[string]any) []format.Effect {
	str := func(k string) string { s, _ := args[k].(string); return s }
	switch tool {
	case "write_file":
		if path, content := str("path"), str("content"); path != "" {
			sum := sha256.Sum256([]byte(content))
			return []format.Effect{{FileWrite: &format.FileWrite{Path: path, After: sum[:]}}}
		}
	case "edit_file":
		if dry, _ := args["dryRun"].(bool); !dry && str("path") != "" {
			return []format.Effect{{FileWrite: &format.FileWrite{Path: str("path")}}}
		}
	case "move_file":
		if src, dst := str("source"), str("destination"); src != "" && dst != "" {
			return []format.Effect{{FileWrite: &format.FileWrite{Path: src}}, {FileWrite: &format.FileWrite{Path: dst}}}
		}
	}
	return nil
}
