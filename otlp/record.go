package otlp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentflightrecorder/afr/format"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// spanKey names a span: span ids are unique within a trace.
type spanKey struct {
	trace pcommon.TraceID
	span  pcommon.SpanID
}

// spanMemory remembers the seq of recently recorded spans, at most size of
// them, forgetting the oldest first.
type spanMemory struct {
	mu   sync.Mutex
	seqs map[spanKey]uint64
	ring []spanKey // insertion order, a circular buffer
	next int
}

func newSpanMemory(size int) *spanMemory {
	return &spanMemory{seqs: make(map[spanKey]uint64, size), ring: make([]spanKey, 0, size)}
}

func (m *spanMemory) get(k spanKey) (uint64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	seq, ok := m.seqs[k]
	return seq, ok
}

func (m *spanMemory) put(k spanKey, seq uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.seqs[k]; ok {
		m.seqs[k] = seq
		return
	}
	if len(m.ring) < cap(m.ring) {
		m.ring = append(m.ring, k)
	} else {
		delete(m.seqs, m.ring[m.next])
		m.ring[m.next] = k
		m.next = (m.next + 1) % len(m.ring)
	}
	m.seqs[k] = seq
}

// result is what became of one request's spans.
type result struct {
	recorded int
	rejected int
	reasons  []string // the first few reasons for rejected spans
}

const maxReasons = 5

func (r *result) reject(reason string) {
	r.rejected++
	if len(r.reasons) < maxReasons {
		r.reasons = append(r.reasons, reason)
	}
}

// message is partial_success.error_message.
func (r *result) message() string {
	msg := fmt.Sprintf("%d spans could not become events: %s", r.rejected, strings.Join(r.reasons, "; "))
	if r.rejected > len(r.reasons) {
		msg += "; …"
	}
	return msg
}

// pending is one span of a request on its way to the log.
type pending struct {
	key    spanKey
	parent spanKey // zero span id: a root
	ev     format.Event
	depth  int // 0 unless its parent is in the same request
}

// maxParallel bounds the concurrent Record calls of one request.
const maxParallel = 64

// record turns the spans of one request into events. A span whose parent
// is in the same request is recorded after it, so that the link always
// resolves; spans of the same depth are recorded concurrently (a recorder
// then makes them durable with one sync). It returns an error only when
// the sink fails for a reason other than the event itself.
func (h *Handler) record(ctx context.Context, td ptrace.Traces) (result, error) {
	var res result
	var all []*pending
	byKey := map[spanKey]*pending{}
	rss := td.ResourceSpans()
	for i := range rss.Len() {
		rs := rss.At(i)
		run, resource := resourceOf(rs.Resource())
		resourceErr := uniqueKeys(rs.Resource().Attributes())
		if resourceErr != nil {
			resourceErr = fmt.Errorf("resource: %w", resourceErr)
		}
		sss := rs.ScopeSpans()
		for j := range sss.Len() {
			ss := sss.At(j)
			spans := ss.Spans()
			for k := range spans.Len() {
				sp := spans.At(k)
				if sp.TraceID().IsEmpty() || sp.SpanID().IsEmpty() {
					res.reject(fmt.Sprintf("span %q has an empty trace or span id", sp.Name()))
					continue
				}
				if err := cmp.Or(spanKeys(sp), resourceErr); err != nil {
					res.reject(fmt.Sprintf("span %s of trace %s: %v (OTLP attribute keys are unique)", sp.SpanID(), sp.TraceID(), err))
					continue
				}
				ev, ok := spanEvent(sp, run, resource, ss.Scope().Name(), h.opts.KeepUnknown)
				if !ok {
					continue
				}
				p := &pending{key: spanKey{sp.TraceID(), sp.SpanID()}, parent: spanKey{sp.TraceID(), sp.ParentSpanID()}, ev: ev}
				if _, dup := byKey[p.key]; dup {
					res.reject(fmt.Sprintf("span %s of trace %s appears twice in the request", p.key.span, p.key.trace))
					continue
				}
				byKey[p.key] = p
				all = append(all, p)
			}
		}
	}
	levels := depthLevels(all, byKey)
	for _, level := range levels {
		if err := h.recordLevel(ctx, level, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// depthLevels groups spans by their depth within the request: a span whose
// parent is in the request comes one level after it.
func depthLevels(all []*pending, byKey map[spanKey]*pending) [][]*pending {
	var depth func(p *pending, seen int) int
	depth = func(p *pending, seen int) int {
		if p.depth > 0 || p.parent.span.IsEmpty() {
			return p.depth
		}
		parent, ok := byKey[p.parent]
		if !ok || seen > len(all) { // not in the request, or a cycle
			return 0
		}
		p.depth = depth(parent, seen+1) + 1
		return p.depth
	}
	var levels [][]*pending
	for _, p := range all {
		d := depth(p, 0)
		for len(levels) <= d {
			levels = append(levels, nil)
		}
		levels[d] = append(levels[d], p)
	}
	return levels
}

// recordLevel records spans none of which is the parent of another.
func (h *Handler) recordLevel(ctx context.Context, level []*pending, res *result) error {
	var (
		mu      sync.Mutex
		wg      sync.WaitGroup
		sinkErr error
		sem     = make(chan struct{}, maxParallel)
	)
	for _, p := range level {
		h.link(p)
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			rc, err := h.sink.Record(ctx, p.ev)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				h.spans.put(p.key, rc.Seq)
				res.recorded++
			case errors.Is(err, format.ErrInvalidPayload) || errors.Is(err, format.ErrLimit) || errors.Is(err, format.ErrNewerVersion):
				res.reject(fmt.Sprintf("span %s (%q): %v", p.key.span, p.ev.Tool, err))
			default:
				sinkErr = cmp.Or(sinkErr, err)
			}
		})
	}
	wg.Wait()
	return sinkErr
}

// link names the span's parent: by seq (context.parents) when the parent
// was recorded first and is remembered, else by its event id
// (context.parent_ids), which readers resolve within the run whenever the
// parent is recorded, before or after the child (docs/SPEC.md, "Links by
// id"). The log is append-only, so a child recorded before its parent
// cannot be edited later: the id is the link it carries.
func (h *Handler) link(p *pending) {
	if p.parent.span.IsEmpty() {
		return
	}
	if p.ev.Payload.Context == nil {
		p.ev.Payload.Context = &format.ContextProvenance{}
	}
	if seq, ok := h.spans.get(p.parent); ok {
		p.ev.Payload.Context.Parents = append(p.ev.Payload.Context.Parents, seq)
		return
	}
	p.ev.Payload.Context.ParentIDs = append(p.ev.Payload.Context.ParentIDs, eventID(p.parent.trace, p.parent.span))
}

// resourceOf is a resource's service.name, which becomes the run of its
// spans' events, and its other attributes (nil when there are none).
func resourceOf(r pcommon.Resource) (string, map[string]any) {
	attrs := clean(r.Attributes().AsRaw()).(map[string]any)
	run := ""
	if v, ok := r.Attributes().Get(attrService); ok {
		run = v.AsString()
	}
	delete(attrs, attrService)
	if len(attrs) == 0 {
		return run, nil
	}
	return run, attrs
}
