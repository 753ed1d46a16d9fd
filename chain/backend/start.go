package backend

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentflightrecorder/afr/chain/backend/anvil"
)

// Kind names a chain Start starts.
type Kind string

// The kinds of chain Start starts.
const (
	// KindInProcess is a chain executed directly by package evm, without a
	// node (InProcess): the fastest, for specs and benchmarks.
	KindInProcess Kind = "inproc"
	// KindEmbedded is go-ethereum's in-process node (package
	// chain/backend/embedded, which a program imports to start it), which
	// can serve JSON-RPC.
	KindEmbedded Kind = "embedded"
	// KindAnvil is an anvil process (Anvil) with a fresh chain.
	KindAnvil Kind = "anvil"
	// KindFork is an anvil process forking another chain's state at a block
	// (Options.Anvil.ForkURL and ForkBlock), served without anvil's rate
	// limit for the forked endpoint (--no-rate-limit).
	KindFork Kind = "fork"
)

// Kinds returns the kinds Start starts, KindInProcess first.
func Kinds() []Kind { return []Kind{KindInProcess, KindEmbedded, KindAnvil, KindFork} }

// ErrUnknownKind is returned (wrapped) by ParseKind and Start for a name
// that is not one of Kinds.
var ErrUnknownKind = errors.New("unknown chain backend")

// ParseKind returns the kind named s. An unknown name is an error wrapping
// ErrUnknownKind that lists the kinds.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds() {
		if string(k) == s {
			return k, nil
		}
	}
	return "", unknownKind(s)
}

func unknownKind(s string) error {
	names := make([]string, len(Kinds()))
	for i, k := range Kinds() {
		names[i] = string(k)
	}
	return fmt.Errorf("chain: %w %q (want %s or %s)", ErrUnknownKind, s, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// Options configure the chain Start starts; only those of its kind apply.
type Options struct {
	// InProcess configures KindInProcess.
	InProcess InProcessOptions
	// Embedded configures KindEmbedded.
	Embedded EmbeddedOptions
	// Anvil configures the anvil process of KindAnvil and KindFork. Its
	// ForkURL (required) and ForkBlock (0: the endpoint's latest block)
	// name the forked chain of KindFork, and are refused for KindAnvil.
	Anvil anvil.Options
}

// Start starts a chain of the given kind. The anvil process of KindAnvil
// and KindFork stops when ctx is done or the Backend is closed, whichever
// comes first. On failure the Backend is nil (not a typed nil) and nothing
// is left running.
func Start(ctx context.Context, kind Kind, opts Options) (Backend, error) {
	switch kind {
	case KindInProcess:
		c, err := NewInProcess(opts.InProcess)
		if err != nil {
			return nil, err
		}
		return c, nil
	case KindEmbedded:
		return newEmbedded(opts.Embedded)
	case KindAnvil:
		if opts.Anvil.ForkURL != "" {
			return nil, errors.New("chain: a fork URL is for the fork backend, not anvil's fresh chain")
		}
	case KindFork:
		if opts.Anvil.ForkURL == "" {
			return nil, errors.New("chain: the fork backend needs the URL of the chain to fork")
		}
		opts.Anvil.Args = append([]string{"--no-rate-limit"}, opts.Anvil.Args...)
	default:
		return nil, unknownKind(string(kind))
	}
	a, err := StartAnvil(ctx, opts.Anvil)
	if err != nil {
		return nil, err
	}
	return a, nil
}
