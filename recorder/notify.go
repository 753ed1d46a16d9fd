package recorder

import "sync"

// notifier delivers sealed epochs in order through a channel without ever
// blocking the sender: undelivered items wait in an unbounded queue.
type notifier struct {
	mu     sync.Mutex
	queue  []SealedEpoch
	wake   chan struct{}
	out    chan SealedEpoch
	done   chan struct{}
	exited chan struct{}
}

func newNotifier() *notifier {
	n := &notifier{wake: make(chan struct{}, 1), out: make(chan SealedEpoch), done: make(chan struct{}), exited: make(chan struct{})}
	go n.run()
	return n
}

func (n *notifier) push(s SealedEpoch) {
	n.mu.Lock()
	n.queue = append(n.queue, s)
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

func (n *notifier) run() {
	defer close(n.exited)
	defer close(n.out)
	for {
		n.mu.Lock()
		if len(n.queue) == 0 {
			n.mu.Unlock()
			select {
			case <-n.wake:
				continue
			case <-n.done:
				return
			}
		}
		s := n.queue[0]
		n.queue = n.queue[1:]
		n.mu.Unlock()
		select {
		case n.out <- s:
		case <-n.done:
			return
		}
	}
}

func (n *notifier) close() {
	close(n.done)
	<-n.exited
}
