package workload_test

import (
	"reflect"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder/workload"
)

func TestDeterministic(t *testing.T) {
	a, b := workload.Generate(42, 500), workload.Generate(42, 500)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different events")
	}
	c := workload.Generate(43, 500)
	if reflect.DeepEqual(a, c) {
		t.Fatal("different seeds, same events")
	}
}

func TestShape(t *testing.T) {
	const n = 10000
	evs := workload.Generate(42, n)
	tools := map[string]int{}
	grouped := 0
	groupSize := map[string]int{}
	for i, ev := range evs {
		tools[ev.Tool]++
		if ev.Group != "" {
			grouped++
			groupSize[ev.Group]++
		}
		if _, err := format.EncodePayload(&ev.Payload); err != nil {
			t.Fatalf("event %d does not encode: %v", i, err)
		}
		if ev.Payload.Context != nil {
			for _, p := range ev.Payload.Context.Parents {
				if p >= uint64(i) {
					t.Fatalf("event %d has parent %d from the future", i, p)
				}
			}
		}
	}
	share := float64(grouped) / n
	if share < 0.12 || share > 0.18 {
		t.Errorf("concurrent share %.3f, want about 0.15", share)
	}
	for g, s := range groupSize {
		if s < 2 || s > 3 {
			t.Errorf("group %s has %d events, want 2–3", g, s)
		}
	}
	// All eight categories appear (file splits into read and write).
	for _, want := range []string{"file_read", "file_write", "shell", "api", "db_query", "retrieval", "code_exec", "approval", "delegation"} {
		if tools[want] == 0 {
			t.Errorf("no %s events", want)
		}
	}
}
