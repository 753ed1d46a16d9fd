package bench

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress reports a run's progress: on a terminal one line, rewritten at
// each step; elsewhere (a log file, a CI job) one plain line per step.
type Progress struct {
	w     io.Writer
	tty   bool
	start time.Time
	mu    sync.Mutex
	shown bool // a line is on the terminal
}

// NewProgress reports to w; tty says whether w is a terminal.
func NewProgress(w io.Writer, tty bool) *Progress {
	return &Progress{w: w, tty: tty, start: time.Now()}
}

// Step reports step done of total of table, doing what. A nil Progress
// reports nothing.
func (p *Progress) Step(table string, done, total int, what string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := time.Since(p.start).Seconds()
	if !p.tty {
		fmt.Fprintf(p.w, "afr bench: %s %d/%d %s (%.1f s)\n", table, done, total, what, elapsed)
		return
	}
	bar := ""
	if total > 0 {
		const width = 20
		n := done * width / total
		for i := range width {
			if i < n {
				bar += "#"
			} else {
				bar += "."
			}
		}
	}
	fmt.Fprintf(p.w, "\r\033[K%-7s [%s] %d/%d %s  %.0f s", table, bar, done, total, what, elapsed)
	p.shown = true
}

// Clear removes the progress line from the terminal, so that what follows
// starts on a clean line.
func (p *Progress) Clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
