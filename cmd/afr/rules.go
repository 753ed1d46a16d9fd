package main

// Fork rules for the commands that execute on a fork (replay, simulate).

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/params"

	"github.com/agentflightrecorder/afr/evm"
)

// rulesUsage is the --help paragraph of the rules flags.
const rulesUsage = `Fork rules: go-ethereum's for mainnet, sepolia and hoodi; for any other
chain, the rules the endpoint reports (debug_chainConfig on geth and AFR's
embedded chain, anvil_nodeInfo's hardfork on anvil) or, offline, the rules
recorded in the cache. Nothing is guessed: a chain whose rules cannot be
found is an error, and --hardfork NAME (every fork up to NAME active from
genesis, as anvil --hardfork runs) or --chain-config FILE (a genesis file or
its "config" object) sets them.`

// rulesFlags are --hardfork and --chain-config.
type rulesFlags struct {
	hardfork, chainConfig *string
}

func addRulesFlags(fs *flag.FlagSet) rulesFlags {
	return rulesFlags{
		hardfork:    fs.String("hardfork", "", "fork rules by name, every fork up to it active: "+strings.Join(evm.Hardforks(), ", ")),
		chainConfig: fs.String("chain-config", "", "fork rules from a JSON file: a genesis file or a go-ethereum chain config"),
	}
}

// resolve returns the rules the flags give: a chain config, or a hardfork
// name checked here (its chain id comes from the chain); both empty when
// the flags give none.
func (r rulesFlags) resolve() (*params.ChainConfig, string, error) {
	switch {
	case *r.hardfork != "" && *r.chainConfig != "":
		return nil, "", usageError{"give --hardfork or --chain-config, not both"}
	case *r.hardfork != "":
		if _, err := evm.HardforkConfig(*r.hardfork, 1); err != nil {
			return nil, "", usageError{"--hardfork: " + err.Error()}
		}
		return nil, *r.hardfork, nil
	case *r.chainConfig != "":
		b, err := os.ReadFile(*r.chainConfig)
		if err != nil {
			return nil, "", usageError{fmt.Sprintf("--chain-config: %v", err)}
		}
		c, err := evm.LoadChainConfig(b)
		if err != nil {
			return nil, "", usageError{fmt.Sprintf("--chain-config %s: %v", *r.chainConfig, err)}
		}
		return c, "", nil
	}
	return nil, "", nil
}

// rulesHint adds the rules flags to the error of a chain whose fork rules
// are not known (evm.ErrUnknownChain).
func rulesHint(err error) error {
	if errors.Is(err, evm.ErrUnknownChain) {
		return fmt.Errorf("%w (hint: on the command line, --hardfork NAME or --chain-config FILE)", err)
	}
	return err
}
