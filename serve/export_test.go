package serve

// IdleConns returns how many of d's open connections are idle, so that a
// test can wait for the daemon to see a connection go idle before it
// opens the next.
func IdleConns(d *Daemon) int {
	c := d.handler.conns
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, info := range c.open {
		if !info.busy {
			n++
		}
	}
	return n
}
