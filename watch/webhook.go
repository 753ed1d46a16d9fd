package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Webhook posts each event, as the JSON object of its output line, to a
// URL.
type Webhook struct {
	URL    string
	Client *http.Client // http.DefaultClient when nil
}

// Send posts ev. Any answer but 2xx is an error carrying its status and
// the start of its body.
func (h Webhook) Send(ctx context.Context, ev Event) error {
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("watch: webhook: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	c := h.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("watch: webhook: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("watch: webhook %s answered %s: %s", h.URL, resp.Status, bytes.TrimSpace(body))
	}
	return nil
}
