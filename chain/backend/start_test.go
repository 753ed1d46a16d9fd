package backend_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
)

func TestParseKind(t *testing.T) {
	for _, k := range backend.Kinds() {
		got, err := backend.ParseKind(string(k))
		if err != nil || got != k {
			t.Errorf("ParseKind(%q) = %q, %v", k, got, err)
		}
	}
	_, err := backend.ParseKind("ganache")
	if !errors.Is(err, backend.ErrUnknownKind) || !strings.Contains(err.Error(), `"ganache" (want inproc, embedded, anvil or fork)`) {
		t.Fatalf("ParseKind(ganache) = %v, want ErrUnknownKind listing the kinds", err)
	}
}

func TestStartEmbedded(t *testing.T) {
	b, err := backend.Start(context.Background(), backend.KindEmbedded, backend.Options{Embedded: backend.EmbeddedOptions{Keys: 2, BlockPeriod: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Name() != "embedded" || len(b.Keys()) != 2 {
		t.Fatalf("Start(embedded) = %s with %d keys, want embedded with 2", b.Name(), len(b.Keys()))
	}
}

func TestStartRefuses(t *testing.T) {
	for _, c := range []struct {
		kind backend.Kind
		opts backend.Options
		want string
	}{
		{"ganache", backend.Options{}, "unknown chain backend"},
		{backend.KindFork, backend.Options{}, "needs the URL of the chain to fork"},
		{backend.KindAnvil, backend.Options{Anvil: anvil.Options{ForkURL: "http://127.0.0.1:1"}}, "a fork URL is for the fork backend"},
		{backend.KindEmbedded, backend.Options{Embedded: backend.EmbeddedOptions{HTTP: "192.0.2.1:0"}}, "only loopback addresses"},
	} {
		b, err := backend.Start(context.Background(), c.kind, c.opts)
		if b != nil || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Start(%s, %+v) = %v, %v; want a nil Backend and an error containing %q", c.kind, c.opts, b, err, c.want)
		}
	}
}
