package mcpproxy

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Session ids a client makes up do not grow the proxy's map of sessions:
// a session first seen in a request is forgotten when the server refuses
// it (here with 400, which some servers give an unknown session instead of
// 404), and kept once the server answers it with 2xx. Before, every
// invented id stayed in the map for the life of the proxy.
func TestHTTPInventedSessionsForgotten(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") != "real" {
			http.Error(w, "unknown session", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	}))
	defer up.Close()
	h, err := NewHTTP(up.URL, Options{Recorder: &memRecorder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	post := func(sid string) int {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	for i := range 100 {
		if code := post(fmt.Sprintf("made-up-%d", i)); code != http.StatusBadRequest {
			t.Fatalf("made-up session %d: HTTP %d, want the server's 400 relayed", i, code)
		}
	}
	if code := post("real"); code != http.StatusOK {
		t.Fatalf("real session: HTTP %d", code)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.sessions) != 1 || h.sessions["real"] == nil || len(h.tentative) != 0 {
		t.Fatalf("sessions kept: %d (tentative %d), want the one the server answered", len(h.sessions), len(h.tentative))
	}
}
