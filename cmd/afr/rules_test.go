package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/evm"
)

// TestRulesHint: the command, not package evm, names the flags that give
// fork rules for an unknown chain; other errors pass unchanged.
func TestRulesHint(t *testing.T) {
	unknown := fmt.Errorf("tracesim: replay: %w", &evm.UnknownChainError{ChainID: 999})
	err := rulesHint(unknown)
	var ue *evm.UnknownChainError
	if !errors.As(err, &ue) || ue.ChainID != 999 || !strings.HasSuffix(err.Error(), "(hint: on the command line, --hardfork NAME or --chain-config FILE)") {
		t.Errorf("rulesHint(unknown chain) = %v", err)
	}
	other := errors.New("evm: fork block not found")
	if got := rulesHint(other); got != other {
		t.Errorf("rulesHint(%v) = %v, want it unchanged", other, got)
	}
}
