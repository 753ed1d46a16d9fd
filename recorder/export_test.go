package recorder

// SetClock sets r's logical clock, as a log written before the bounds of
// CausalLinkError may have left it.
func SetClock(r *Recorder, clock uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clock = clock
}

// ParseManifest is the reading of a MANIFEST's content, for fuzzing.
var ParseManifest = parseManifest
