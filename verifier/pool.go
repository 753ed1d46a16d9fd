package verifier

import (
	"runtime"
	"sync"
)

// workers is the number of goroutines verifying batches in parallel
// (Options.Workers, default GOMAXPROCS).
func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// inOrder runs process on batches on a pool of workers and check on each
// processed batch in the order the batches were sent, on one goroutine: the
// checks that link batches (the hash chain, finding order) see them as a
// sequential verifier does. At most about three batches per worker are in
// flight. With one worker, send runs both on the caller's goroutine.
type inOrder[B any] struct {
	process, check func(B)
	work, ordered  chan job[B]
	wg             sync.WaitGroup
	checked        chan struct{}
}

type job[B any] struct {
	b    B
	done chan struct{}
}

func newInOrder[B any](workers int, process, check func(B)) *inOrder[B] {
	p := &inOrder[B]{process: process, check: check}
	if workers <= 1 {
		return p
	}
	p.work = make(chan job[B], workers)
	p.ordered = make(chan job[B], 2*workers)
	p.checked = make(chan struct{})
	for range workers {
		p.wg.Go(func() {
			for j := range p.work {
				p.process(j.b)
				close(j.done)
			}
		})
	}
	go func() {
		defer close(p.checked)
		for j := range p.ordered {
			<-j.done
			p.check(j.b)
		}
	}()
	return p
}

// send queues b, blocking while the pool is full.
func (p *inOrder[B]) send(b B) {
	if p.work == nil {
		p.process(b)
		p.check(b)
		return
	}
	j := job[B]{b: b, done: make(chan struct{})}
	p.ordered <- j
	p.work <- j
}

// wait returns once every batch sent is checked; send must not be called
// after it.
func (p *inOrder[B]) wait() {
	if p.work == nil {
		return
	}
	close(p.work)
	close(p.ordered)
	p.wg.Wait()
	<-p.checked
}
