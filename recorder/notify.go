package recorder

import (
	"sync"
	"time"
)

// notifyInterval is how often sealed epochs are handed to the Sealed()
// channel. The notifier polls instead of being woken by Record: waking a
// parked goroutine costs the waker several microseconds (a futex call), and
// doing that inside Record at every seal made the seal the slowest event of
// each epoch. Anchoring takes seconds; 10 ms of delay is nothing to it.
const notifyInterval = 10 * time.Millisecond

// notifier delivers sealed epochs in order through a channel without ever
// blocking the sender: undelivered items wait in an unbounded queue.
type notifier struct {
	mu     sync.Mutex
	queue  []SealedEpoch
	out    chan SealedEpoch
	done   chan struct{}
	exited chan struct{}
}

func newNotifier() *notifier {
	n := &notifier{out: make(chan SealedEpoch, 64), done: make(chan struct{}), exited: make(chan struct{})}
	go n.run()
	return n
}

// push queues s for delivery; it never blocks and wakes no goroutine.
func (n *notifier) push(s SealedEpoch) {
	n.mu.Lock()
	n.queue = append(n.queue, s)
	n.mu.Unlock()
}

func (n *notifier) run() {
	defer close(n.exited)
	tick := time.NewTicker(notifyInterval)
	defer tick.Stop()
	for {
		select {
		case <-n.done:
			return
		case <-tick.C:
		}
		for n.deliver(tick.C) {
		}
	}
}

// deliver hands queued epochs to the channel until it is empty, the
// consumer stops taking them (next tick), or the notifier closes. It
// reports whether to keep delivering.
func (n *notifier) deliver(tick <-chan time.Time) bool {
	n.mu.Lock()
	if len(n.queue) == 0 {
		n.mu.Unlock()
		return false
	}
	s := n.queue[0]
	n.mu.Unlock()
	select {
	case n.out <- s:
	case <-tick:
		return false
	case <-n.done:
		return false
	}
	n.mu.Lock()
	n.queue = n.queue[1:]
	n.mu.Unlock()
	return true
}

// close stops delivery. Epochs still queued are put in the channel's buffer
// as far as it has room, then the channel is closed: a consumer still
// reading receives them; the rest are in the store.
func (n *notifier) close() {
	close(n.done)
	<-n.exited
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, s := range n.queue {
		select {
		case n.out <- s:
		default:
		}
	}
	n.queue = nil
	close(n.out)
}
