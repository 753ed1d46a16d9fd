package main

import (
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/recorder"
)

func TestParseMaxWindow(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want recorder.WindowLimit
		err  string
	}{
		{"", recorder.WindowLimit{}, ""},
		{"10000", recorder.WindowLimit{Events: 10000}, ""},
		{"1m", recorder.WindowLimit{Age: time.Minute}, ""},
		{"10000,90s", recorder.WindowLimit{Events: 10000, Age: 90 * time.Second}, ""},
		{"90s,10000", recorder.WindowLimit{Events: 10000, Age: 90 * time.Second}, ""},
		{"100", recorder.WindowLimit{}, "not more than an epoch"},
		{"0", recorder.WindowLimit{}, "not a positive"},
		{"1m,2m", recorder.WindowLimit{}, "given once each"},
		{"-5s", recorder.WindowLimit{}, "not a positive"},
		{"lots", recorder.WindowLimit{}, "not a positive"},
	} {
		got, err := parseMaxWindow(tc.in, 100)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %+v, %v, want an error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v, want %+v", tc.in, got, err, tc.want)
		}
	}
}
