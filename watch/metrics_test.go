package watch_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"

	"github.com/agentflightrecorder/afr/watch"
)

// metrics scrapes the watcher's metrics over HTTP, as Prometheus does,
// and parses them with Prometheus's own text parser: name{label="…"} →
// value, the log label (or the alarm label) alone named.
func metrics(t *testing.T, w *watch.Watcher) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(w.Collector())
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("metrics: %s: %s", resp.Status, b)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("metrics are not in the text format: %v", err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.Metric {
			key := name
			for _, l := range m.Label {
				if l.GetName() == "log" || l.GetName() == "alarm" {
					key += "{" + l.GetName() + `="` + l.GetValue() + `"}`
				}
			}
			switch {
			case m.Gauge != nil:
				out[key] = m.Gauge.GetValue()
			case m.Counter != nil:
				out[key] = m.Counter.GetValue()
			}
		}
	}
	return out
}

// Every alarm kind has its two series from the first scrape on, so that a
// rule on a kind never seen still evaluates.
func TestMetricsKinds(t *testing.T) {
	r := newRig(t, inProcess(t))
	w := r.watcher([]watch.Log{{ID: logID("m")}}, watch.Options{})
	m := metrics(t, w)
	for _, k := range watch.Kinds() {
		for _, name := range []string{"afr_watch_alarms_active", "afr_watch_alarms_raised_total"} {
			if v, ok := m[name+`{alarm="`+string(k)+`"}`]; !ok || v != 0 {
				t.Errorf("%s{alarm=%q} = %v (present %v), want 0", name, k, v, ok)
			}
		}
	}
}

// Webhook posts each event as its JSON line; a receiver that does not
// answer 2xx is an error naming the status.
func TestWebhook(t *testing.T) {
	got := make(chan watch.Event, 1)
	status := http.StatusNoContent
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev watch.Event
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&ev) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		got <- ev
		w.WriteHeader(status)
	}))
	defer srv.Close()
	ev := watch.Event{Time: time.Unix(1_767_225_600, 0).UTC(), State: watch.Raised, Alarm: watch.KindAnchorLate, Key: "anchor_late/x/y", Detail: "late"}
	h := watch.Webhook{URL: srv.URL}
	if err := h.Send(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	if r := <-got; r.Key != ev.Key || !r.Time.Equal(ev.Time) || r.Alarm != ev.Alarm {
		t.Fatalf("received %+v, want %+v", r, ev)
	}
	status = http.StatusInternalServerError
	err := h.Send(context.Background(), ev)
	<-got
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("a 500 answer: %v, want an error naming it", err)
	}
}

// Run polls until its context ends and passes each event on: the first
// poll runs at once.
func TestRun(t *testing.T) {
	r := newRig(t, inProcess(t))
	w := r.watcher([]watch.Log{{ID: logID("run"), Window: time.Second}}, watch.Options{})
	r.poll(w)
	r.wait(2 * time.Second)
	ctx, cancel := context.WithCancel(r.ctx)
	events := make(chan watch.Event, 1)
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, time.Hour, func(ev watch.Event) { events <- ev }) }()
	if ev := <-events; ev.Alarm != watch.KindAnchorLate || ev.State != watch.Raised {
		t.Fatalf("first event %+v, want anchor_late raised", ev)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
