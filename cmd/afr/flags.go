package main

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
)

// repeated is a flag that may be given several times, each value kept in
// order.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }

// chainFlags name a chain and AFR's contracts on it, with the same names
// and meanings in every command:
//
//	--chain FILE       chain.json of afr chain: the RPC URL and chain id
//	--deployment FILE  a deployment file of afr deploy: the RPC URL, chain
//	                   id, contracts and deployment block
//	--rpc URL          the RPC URL, alone or instead of the file's
//	--contract ADDR    the EpochAnchor address, alone or instead of the
//	                   deployment's
//
// The endpoint must serve the chain id of the file given (see dial).
type chainFlags struct {
	chainFile, rpc *string
	// depFile (--deployment) and contract are nil in a command that deploys.
	depFile, contract *string
}

// addChainFlags adds the chain flags to fs.
func addChainFlags(fs *flag.FlagSet) *chainFlags {
	c := addEndpointFlags(fs)
	c.depFile = fs.String("deployment", "", "deployment file written by afr deploy (gives the RPC URL, chain id and contracts)")
	c.contract = fs.String("contract", "", "EpochAnchor address (default: from --deployment)")
	return c
}

// addEndpointFlags adds the chain flags that name an endpoint only
// (--chain, --rpc): for a command that deploys the contracts.
func addEndpointFlags(fs *flag.FlagSet) *chainFlags {
	return &chainFlags{
		chainFile: fs.String("chain", "", "chain.json written by afr chain (gives the RPC URL and chain id)"),
		rpc:       fs.String("rpc", "", "JSON-RPC URL of the chain"),
	}
}

func flagValue(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// given reports whether any chain flag was given.
func (c *chainFlags) given() bool {
	return *c.chainFile != "" || *c.rpc != "" || flagValue(c.depFile) != "" || flagValue(c.contract) != ""
}

// target returns the chain the flags name and the deployment file's
// content (nil without --deployment).
func (c *chainFlags) target() (chain.Target, *chain.Deployment, error) {
	var t chain.Target
	var dep *chain.Deployment
	switch depFile := flagValue(c.depFile); {
	case depFile != "" && *c.chainFile != "":
		return t, nil, usageError{"--chain and --deployment exclude each other (a deployment file names its chain)"}
	case depFile != "":
		dep = new(chain.Deployment)
		if err := readJSONFile(depFile, dep); err != nil {
			return t, nil, err
		}
		t = dep.Target()
		if t.ChainID == 0 {
			return t, nil, noChainID(depFile)
		}
	case *c.chainFile != "":
		var cf chainFile
		if err := readJSONFile(*c.chainFile, &cf); err != nil {
			return t, nil, err
		}
		t = chain.Target{RPC: cf.RPC, ChainID: cf.ChainID}
		if t.ChainID == 0 {
			return t, nil, noChainID(*c.chainFile)
		}
	}
	if *c.rpc != "" {
		t.RPC = *c.rpc
	}
	switch {
	case t.RPC == "" && dep != nil:
		return t, nil, usageError{"the deployment file has no RPC URL: give --rpc URL"}
	case t.RPC == "":
		return t, nil, usageError{"no chain: give --rpc URL, --chain FILE or --deployment FILE (hint: afr chain starts a local one)"}
	case !strings.HasPrefix(t.RPC, "http://") && !strings.HasPrefix(t.RPC, "https://") && !strings.HasPrefix(t.RPC, "ws"):
		return t, nil, usageError{"--rpc: want an http(s):// or ws(s):// URL"}
	}
	return t, dep, nil
}

// noChainID is the error of a deployment or chain file without a chain id
// (or with chain id 0, which no chain has): read as chain.Target's "any
// chain", it would accept an endpoint of any chain, whose contract at the
// file's address could be anyone's.
func noChainID(file string) error {
	return fmt.Errorf("%s: chain_id is required, and is not 0 (docs/SPEC.md, \"Deployment file\")", file)
}

// deployment returns the chain the flags name and the deployment on it:
// the deployment file's, with --contract as its EpochAnchor if given (a
// contract the file does not name is searched from block 0).
func (c *chainFlags) deployment() (chain.Target, chain.Deployment, error) {
	t, dep, err := c.target()
	if err != nil {
		return t, chain.Deployment{}, err
	}
	var d chain.Deployment
	if dep != nil {
		d = *dep
	}
	if *c.contract != "" {
		a, err := parseAddress("--contract", *c.contract)
		if err != nil {
			return t, d, err
		}
		if a != d.EpochAnchor {
			d.EpochAnchor, d.Block = a, 0
		}
	}
	if d.EpochAnchor == (common.Address{}) {
		return t, d, usageError{"give --contract ADDR or --deployment FILE"}
	}
	return t, d, nil
}

// dial connects to the chain t, with keys to sign with; an endpoint of
// another chain than the file given is refused with a hint.
func (c *chainFlags) dial(ctx context.Context, t chain.Target, keys ...*ecdsa.PrivateKey) (backend.Backend, error) {
	b, err := backend.Dial(ctx, t, keys...)
	var ce *chain.ChainIDError
	if errors.As(err, &ce) {
		file := "the deployment file " + flagValue(c.depFile)
		if flagValue(c.depFile) == "" {
			file = "the chain file " + *c.chainFile
		}
		return nil, fmt.Errorf("%w (hint: %s is for chain %d: check --rpc)", err, file, ce.Want)
	}
	return b, err
}

// addKeyFlag adds --key FILE, the private key a command signs with.
func addKeyFlag(fs *flag.FlagSet) *string {
	return fs.String("key", "", "private key file (hex) to sign with")
}

// readKey reads the key file of --key, which is required.
func readKey(path string) (*ecdsa.PrivateKey, error) {
	if path == "" {
		return nil, usageError{"--key FILE is required"}
	}
	return chain.ReadKey(path)
}

func parseAddress(name, s string) (common.Address, error) {
	if !common.IsHexAddress(s) {
		return common.Address{}, usageError{fmt.Sprintf("%s: %q is not an address", name, s)}
	}
	return common.HexToAddress(s), nil
}
