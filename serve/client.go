package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
)

// Client appends events through a running daemon: a recorder.EventWriter
// for writers that must not open the log themselves because the daemon
// holds it (afr record, afr import and afr mcp-proxy with --serve).
type Client struct {
	base  string
	token string
	http  *http.Client
}

var _ recorder.EventWriter = (*Client)(nil)

// NewClient returns a client of the daemon at base (e.g.
// "http://127.0.0.1:8787") authenticating with token.
func NewClient(base, token string) *Client {
	return &Client{base: strings.TrimRight(base, "/"), token: strings.TrimSpace(token), http: &http.Client{Timeout: 2 * time.Minute}}
}

// UnreachableError is returned by Client.Record when no daemon answered at
// URL: the request failed before any HTTP response (Err says how).
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("serve: the daemon at %s: %v", e.URL, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Record implements recorder.EventWriter: POST /v1/events, returning the
// receipt the daemon gives once the event is durable. A refusal is an
// error with the daemon's status, reason and hint; no answer at all is an
// *UnreachableError.
func (c *Client) Record(ctx context.Context, ev format.Event) (recorder.Receipt, error) {
	body, err := json.Marshal(ev)
	if err != nil {
		return recorder.Receipt{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v1/events", bytes.NewReader(body))
	if err != nil {
		return recorder.Receipt{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return recorder.Receipt{}, &UnreachableError{URL: c.base, Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return recorder.Receipt{}, fmt.Errorf("serve: the daemon at %s: %w", c.base, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e apiError
		if json.Unmarshal(b, &e) != nil || e.Error == "" {
			return recorder.Receipt{}, fmt.Errorf("serve: the daemon at %s answered HTTP %d: %.200s", c.base, resp.StatusCode, b)
		}
		msg := fmt.Sprintf("serve: the daemon refused the event (HTTP %d): %s", resp.StatusCode, e.Error)
		if e.Hint != "" {
			msg += " (hint: " + e.Hint + ")"
		}
		return recorder.Receipt{}, fmt.Errorf("%s", msg)
	}
	var rc recorder.Receipt
	if err := json.Unmarshal(b, &rc); err != nil {
		return recorder.Receipt{}, fmt.Errorf("serve: the daemon's receipt: %w", err)
	}
	return rc, nil
}

// Close implements the writers' Close: the daemon keeps the log open (and
// seals it when it stops).
func (c *Client) Close() error { return nil }
