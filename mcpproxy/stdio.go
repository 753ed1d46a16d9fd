package mcpproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// ServerExitedError says that the server ended the session while the
// client was still connected.
type ServerExitedError struct {
	Command string
	Err     error // the process's exit status (nil: it exited with 0)
	Pending int   // calls that were in flight, answered with an error
}

func (e *ServerExitedError) Error() string {
	status := "exit status 0"
	if e.Err != nil {
		status = e.Err.Error()
	}
	return fmt.Sprintf("the MCP server %s exited (%s) while the client was connected; %d call(s) in flight were answered with an error and recorded", e.Command, status, e.Pending)
}

// StopGrace is how long the server may take to exit after its standard
// input is closed (the client left) before it is sent SIGTERM, and then
// SIGKILL.
var StopGrace = 5 * time.Second

// Stdio runs one MCP session over standard streams: it starts cmd (the
// real server), relays newline-delimited JSON-RPC frames between the
// client (clientIn, clientOut) and the server, records through p, and
// returns when the session ends. The client leaving (clientIn at EOF, or
// ctx ending, e.g. on SIGTERM) closes the server's input, waits for it to
// exit, records the calls still in flight as abandoned and returns nil. The server leaving first
// answers the calls in flight with an error and returns a
// *ServerExitedError.
func (p *Proxy) Stdio(ctx context.Context, clientIn io.Reader, clientOut io.Writer, cmd *exec.Cmd) error {
	serverIn, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	serverOut, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if cmd.Stderr == nil {
		cmd.Stderr = p.opts.Log
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the MCP server: %w", err)
	}
	var outMu sync.Mutex // frames to the client come from both loops
	toClient := func(frame []byte) {
		outMu.Lock()
		defer outMu.Unlock()
		if _, err := clientOut.Write(frame); err != nil {
			p.logf("writing to the client: %v", err)
		}
	}
	rctx := context.WithoutCancel(ctx) // recording continues while the session winds down
	leaving := make(chan struct{})     // the client left, or ctx ended
	var leaveOnce sync.Once
	leave := func() { leaveOnce.Do(func() { close(leaving) }) }
	go func() {
		// The client has left before the server's input closes: a server
		// that ends with its input is not taken for one that exited.
		defer func() { leave(); serverIn.Close() }()
		readFrames(clientIn, p.opts.MaxMessage, func(frame []byte) {
			forward, reply := p.FromClient(rctx, frame)
			if forward != nil {
				if _, err := serverIn.Write(append(forward, '\n')); err != nil {
					p.logf("writing to the server: %v", err)
				}
			} else if reply != nil {
				toClient(append(reply, '\n'))
			}
		}, func(head []byte, size int64) {
			toClient(append(p.tooLarge(rctx, "mcp:client", head, size), '\n'))
		}, p.logf)
	}()
	serverDone := make(chan struct{})
	go stopServer(ctx, cmd, serverIn, leave, leaving, serverDone)
	readFrames(serverOut, p.opts.MaxMessage, func(frame []byte) {
		if forward := p.FromServer(rctx, frame); forward != nil {
			toClient(append(forward, '\n'))
		}
	}, func(head []byte, size int64) {
		// Its id is not read: a call it answers stays in flight.
		p.tooLarge(rctx, "mcp:server", head, size)
	}, p.logf)
	close(serverDone)
	werr := cmd.Wait()
	select {
	case <-leaving:
		p.Abandon(rctx, "abandoned", "abandoned: the client disconnected before the server answered; the outcome is unknown")
		if werr != nil {
			p.logf("the MCP server exited after the client left: %v", werr)
		}
		return nil
	default:
	}
	ids := p.Abandon(rctx, "server_exited", "the MCP server exited before answering")
	for _, id := range ids {
		toClient(append(errorFrame(id, CodeServerGone, "afr mcp-proxy: the MCP server exited before answering"), '\n'))
	}
	return &ServerExitedError{Command: cmd.Path, Err: werr, Pending: len(ids)}
}

// stopServer ends the server's session when the client leaves (its
// input is closed; StopGrace later SIGTERM, and StopGrace after that
// SIGKILL) or when ctx ends (input closed and SIGTERM at once, as a client
// stopping the proxy with SIGTERM expects of a server, also when ctx ends
// during the grace the client's leaving gave: clients such as the MCP
// Inspector close the proxy's input, then send SIGTERM and SIGKILL 2 s
// apart), unless the server's output ended first.
func stopServer(ctx context.Context, cmd *exec.Cmd, serverIn io.Closer, leave func(), leaving, serverDone <-chan struct{}) {
	select {
	case <-leaving:
	case <-ctx.Done():
		leave()
		serverIn.Close()
	case <-serverDone:
		return
	}
	term := ctx.Done()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		select {
		case <-serverDone:
			return
		case <-term:
		case <-time.After(StopGrace):
		}
		term = nil // SIGKILL only after the grace
		_ = cmd.Process.Signal(sig)
	}
}

// readFrames calls fn with every newline-terminated frame of r (the
// newline included; one is added to a last frame without it) until r ends.
// The frame is fn's until it returns: its buffer is reused for the next
// one. A frame of more than max bytes (its newline not counted) is not
// kept: its first max bytes and its size go to tooBig instead.
func readFrames(r io.Reader, max int, fn func([]byte), tooBig func(head []byte, size int64), logf func(string, ...any)) {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		line []byte
		size int64 // of the frame so far, when it is over max
	)
	for {
		chunk, err := br.ReadSlice('\n')
		if size == 0 {
			line = append(line, chunk...)
			if n := len(bytes.TrimSuffix(line, []byte("\n"))); n > max {
				size, line = int64(n), line[:max]
			}
		} else {
			size += int64(len(bytes.TrimSuffix(chunk, []byte("\n"))))
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		switch {
		case size > 0:
			tooBig(line, size)
		case len(strictjson.TrimSpace(line)) > 0:
			if line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			fn(line)
		}
		line, size = line[:0], 0
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
				logf("reading: %v", err)
			}
			return
		}
	}
}
