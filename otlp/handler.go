package otlp

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/agentflightrecorder/afr/internal/loopback"
	"github.com/agentflightrecorder/afr/internal/strictjson"
	"github.com/agentflightrecorder/afr/recorder"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// TracesPath is where OTLP/HTTP exporters send traces by default.
const TracesPath = "/v1/traces"

// DefaultMaxBodyBytes bounds a request body, before and after
// decompression, when Options.MaxBodyBytes is 0.
const DefaultMaxBodyBytes = 8 << 20

// DefaultSpanMemory is how many recorded spans the handler remembers for
// parent links when Options.SpanMemory is 0.
const DefaultSpanMemory = 1 << 16

// Options configure a Handler. The zero value is usable.
type Options struct {
	// MaxBodyBytes bounds the request body as sent and once decompressed
	// (DefaultMaxBodyBytes when 0); a larger body gets 413.
	MaxBodyBytes int64
	// KeepUnknown keeps spans without a GenAI operation as context
	// observations; when false they are acknowledged and not recorded.
	KeepUnknown bool
	// SpanMemory is how many recorded spans (trace id, span id → seq) are
	// remembered to link children that arrive in later requests
	// (DefaultSpanMemory when 0); older ones are forgotten first.
	SpanMemory int
	// Token, when not empty, is the bearer token every request must carry
	// ("Authorization: Bearer <token>", which exporters send when told
	// OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20<token>); a
	// request without it gets 401.
	Token string
}

// Handler serves POST /v1/traces. It is safe for concurrent use.
type Handler struct {
	sink  recorder.EventWriter
	opts  Options
	spans *spanMemory
}

// NewHandler returns a handler that records into sink.
func NewHandler(sink recorder.EventWriter, opts Options) *Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.SpanMemory <= 0 {
		opts.SpanMemory = DefaultSpanMemory
	}
	return &Handler{sink: sink, opts: opts, spans: newSpanMemory(opts.SpanMemory)}
}

// encoding is a request's (and its response's) content type.
type encoding int

const (
	encProto encoding = iota
	encJSON
)

func (e encoding) contentType() string {
	if e == encJSON {
		return "application/json"
	}
	return "application/x-protobuf"
}

// ServeHTTP implements http.Handler. It refuses what a web page could send
// (a request to loopback naming another host, a cross-origin browser
// request: 403) and, with Options.Token, a request without the token (401).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := loopback.Check(r); err != nil {
		writeStatus(w, encJSON, http.StatusForbidden, err.Error()+": the receiver is for exporters on this host, not web pages")
		return
	}
	if h.opts.Token != "" && !loopback.Bearer(r, h.opts.Token) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="afr"`)
		writeStatus(w, encJSON, http.StatusUnauthorized, "missing or wrong bearer token: send the header Authorization: Bearer <token> (OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20<token>)")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeStatus(w, encJSON, http.StatusMethodNotAllowed, fmt.Sprintf("method %s: OTLP/HTTP exports are POSTed", r.Method))
		return
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var enc encoding
	switch {
	case err == nil && mt == "application/x-protobuf":
		enc = encProto
	case err == nil && mt == "application/json":
		enc = encJSON
	default:
		writeStatus(w, encJSON, http.StatusUnsupportedMediaType,
			fmt.Sprintf("content type %q: want application/x-protobuf or application/json", r.Header.Get("Content-Type")))
		return
	}
	body, code, err := h.readBody(w, r)
	if err != nil {
		writeStatus(w, enc, code, err.Error())
		return
	}
	req := ptraceotlp.NewExportRequest()
	if enc == encJSON {
		// Read as every reader reads it (docs/SPEC.md, "Reading JSON"):
		// pdata's reader would take the last of two equal names, of a
		// field's two names ("traceId", "trace_id") and of two values of
		// one AnyValue.
		if err = strictjson.CheckProto(body, anyValueFields); err == nil {
			err = req.UnmarshalJSON(body)
		}
	} else {
		err = req.UnmarshalProto(body)
	}
	if err != nil {
		writeStatus(w, enc, http.StatusBadRequest, fmt.Sprintf("the body is not an OTLP ExportTraceServiceRequest in %s: %v", enc.contentType(), err))
		return
	}
	res, err := h.record(r.Context(), req.Traces())
	if err != nil {
		w.Header().Set("Retry-After", "1")
		writeStatus(w, enc, http.StatusServiceUnavailable, fmt.Sprintf("the log did not accept the events (%d of the request's spans were recorded before the failure): %v", res.recorded, err))
		return
	}
	resp := ptraceotlp.NewExportResponse()
	if res.rejected > 0 {
		ps := resp.PartialSuccess()
		ps.SetRejectedSpans(int64(res.rejected))
		ps.SetErrorMessage(res.message())
	}
	var out []byte
	if enc == encJSON {
		out, err = resp.MarshalJSON()
	} else {
		out, err = resp.MarshalProto()
	}
	if err != nil {
		writeStatus(w, enc, http.StatusInternalServerError, "encoding the response: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", enc.contentType())
	w.WriteHeader(http.StatusOK)
	w.Write(out)
}

// readBody reads the body, decompressing gzip, within the size limit. On
// error it returns the status code to answer with.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, int, error) {
	limit := h.opts.MaxBodyBytes
	if r.ContentLength > limit {
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("body of %d bytes is over the limit of %d bytes", r.ContentLength, limit)
	}
	var in io.Reader = http.MaxBytesReader(w, r.Body, limit)
	switch ce := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); ce {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(in)
		if err != nil {
			return nil, tooLargeOr(err, http.StatusBadRequest), fmt.Errorf("gzip body: %w", err)
		}
		defer zr.Close()
		in = zr
	default:
		return nil, http.StatusUnsupportedMediaType, fmt.Errorf("content encoding %q: want gzip or none", ce)
	}
	body, err := io.ReadAll(io.LimitReader(in, limit+1))
	if err != nil {
		return nil, tooLargeOr(err, http.StatusBadRequest), fmt.Errorf("reading the body: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("decompressed body is over the limit of %d bytes", limit)
	}
	return body, 0, nil
}

// tooLargeOr is 413 for a body cut by http.MaxBytesReader, else code.
func tooLargeOr(err error, code int) int {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return http.StatusRequestEntityTooLarge
	}
	return code
}

// writeStatus answers with a google.rpc.Status message, as the OTLP/HTTP
// specification asks of failures, in the request's encoding.
func writeStatus(w http.ResponseWriter, enc encoding, code int, msg string) {
	st := &status.Status{Code: grpcCode(code), Message: msg}
	var out []byte
	var err error
	if enc == encJSON {
		out, err = protojson.Marshal(st)
	} else {
		out, err = proto.Marshal(st)
	}
	if err != nil { // a Status of two plain fields always encodes
		http.Error(w, msg, code)
		return
	}
	w.Header().Set("Content-Type", enc.contentType())
	w.WriteHeader(code)
	w.Write(out)
}

// grpcCode is the gRPC status code matching an HTTP status (the mapping of
// the gRPC-HTTP specification, for the codes this handler answers).
func grpcCode(code int) int32 {
	switch code {
	case http.StatusBadRequest:
		return 3 // INVALID_ARGUMENT
	case http.StatusRequestEntityTooLarge:
		return 8 // RESOURCE_EXHAUSTED
	case http.StatusServiceUnavailable:
		return 14 // UNAVAILABLE
	case http.StatusUnsupportedMediaType, http.StatusMethodNotAllowed:
		return 12 // UNIMPLEMENTED
	case http.StatusUnauthorized:
		return 16 // UNAUTHENTICATED
	case http.StatusForbidden:
		return 7 // PERMISSION_DENIED
	}
	return 13 // INTERNAL
}
