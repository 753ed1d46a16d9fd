package main

import (
	"strings"
	"testing"
	"time"
)

// Lines are cut to the width with "…", and a TAMPERED marker is never cut.
func TestCut(t *testing.T) {
	const marker = "  [TAMPERED: anchor_mismatch]"
	for _, c := range []struct {
		line, tail string
		width      int
		want       string
	}{
		{"     3  shell  rm -rf build", "", 0, "     3  shell  rm -rf build"},
		{"     3  shell  rm -rf build", "", 27, "     3  shell  rm -rf build"},
		{"     3  shell  rm -rf build", "", 20, "     3  shell  rm -…"},
		{"     3  shell  rm -rf build", marker, 40, "     3  sh…" + marker},
		{"     3  shell  rm -rf build", marker, 10, "…" + marker},
		{"     3  shell  ünïcödé ärgs", "", 20, "     3  shell  ünïc…"},
	} {
		if got := cut(c.line, c.tail, c.width); got != c.want {
			t.Errorf("cut(%q, %q, %d) = %q, want %q", c.line, c.tail, c.width, got, c.want)
		}
	}
}

func TestParseQueryTime(t *testing.T) {
	now := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Time
		err  string
	}{
		{"2026-01-02T15:04:05Z", time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC), ""},
		{"2026-01-02T15:04:05.5+01:00", time.Date(2026, 1, 2, 14, 4, 5, 5e8, time.UTC), ""},
		{"2h", now.Add(-2 * time.Hour), ""},
		{"90s", now.Add(-90 * time.Second), ""},
		{"-2h", time.Time{}, "want RFC 3339"},
		{"2026-01-02", time.Time{}, "want RFC 3339"},
		{"yesterday", time.Time{}, "or a duration back from now"},
	} {
		got, err := parseQueryTime(c.in, now)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: got %v, %v; want an error with %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%q: got %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}
