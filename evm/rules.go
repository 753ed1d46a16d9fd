package evm

// Fork rules: which protocol changes an Env executes with. Rules are never
// guessed: they are go-ethereum's shipped config for a known public chain,
// or given (a ChainConfig, a hardfork name, a chain config file), or asked of
// the fork endpoint (see the "Fork rules" section of the package doc).

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// ErrUnknownChain is matched (errors.Is) by every *UnknownChainError.
var ErrUnknownChain = errors.New("evm: no fork rules known for the chain")

// UnknownChainError reports a chain whose fork rules are not known here and
// were neither given nor answered by the endpoint.
type UnknownChainError struct {
	ChainID uint64
}

func (e *UnknownChainError) Error() string {
	return fmt.Sprintf("evm: no fork rules known for chain %d (go-ethereum ships those of mainnet, sepolia and hoodi); "+
		"give them: evm.Config.ChainConfig or ForkConfig.ChainConfig (e.g. evm.HardforkConfig(\"cancun\", %d) or evm.LoadChainConfig of a genesis file), "+
		"or ForkConfig.Hardfork", e.ChainID, e.ChainID)
}

func (e *UnknownChainError) Is(target error) bool { return target == ErrUnknownChain }

// DefaultChainID is the chain id of a local Env that names none (Config.ChainID 0).
const DefaultChainID = 1337

// DefaultChainConfig returns the rules of a local Env that names none: every
// fork up to Osaka active from genesis (HardforkConfig("osaka", chainID)).
func DefaultChainConfig(chainID uint64) *params.ChainConfig {
	c, err := HardforkConfig("osaka", chainID)
	if err != nil {
		panic(err) // "osaka" is in the table
	}
	return c
}

// ChainConfigFor returns go-ethereum's shipped config for a known public chain
// (mainnet, sepolia, hoodi; go-ethereum v1.17 no longer ships holesky's) and
// a *UnknownChainError for any other chain id: no chain gets rules it did not
// ask for.
func ChainConfigFor(chainID uint64) (*params.ChainConfig, error) {
	for _, c := range []*params.ChainConfig{params.MainnetChainConfig, params.SepoliaChainConfig, params.HoodiChainConfig} {
		if c != nil && c.ChainID != nil && c.ChainID.IsUint64() && c.ChainID.Uint64() == chainID {
			return c, nil
		}
	}
	return nil, &UnknownChainError{ChainID: chainID}
}

// hardfork is one named step of the fork sequence and what it switches on.
type hardfork struct {
	names []string // canonical name first; all lower case
	apply func(c *params.ChainConfig)
}

// fromGenesis is block 0 or time 0: a fork active from genesis.
func fromGenesis() *big.Int { return new(big.Int) }

func fromGenesisTime() *uint64 { var t uint64; return &t }

// hardforks is Ethereum's fork sequence, oldest first, with the names anvil
// (--hardfork) and geth spell them.
var hardforks = []hardfork{
	{[]string{"frontier"}, func(*params.ChainConfig) {}},
	{[]string{"homestead"}, func(c *params.ChainConfig) { c.HomesteadBlock = fromGenesis() }},
	{[]string{"tangerine", "tangerinewhistle", "eip150"}, func(c *params.ChainConfig) { c.EIP150Block = fromGenesis() }},
	{[]string{"spurious", "spuriousdragon", "eip158"}, func(c *params.ChainConfig) { c.EIP155Block, c.EIP158Block = fromGenesis(), fromGenesis() }},
	{[]string{"byzantium"}, func(c *params.ChainConfig) { c.ByzantiumBlock = fromGenesis() }},
	// go-ethereum reads an unset Petersburg block as "with Constantinople";
	// Constantinople alone (with EIP-1283) needs Petersburg scheduled never.
	{[]string{"constantinople"}, func(c *params.ChainConfig) {
		c.ConstantinopleBlock, c.PetersburgBlock = fromGenesis(), new(big.Int).SetUint64(math.MaxUint64)
	}},
	{[]string{"petersburg"}, func(c *params.ChainConfig) { c.PetersburgBlock = fromGenesis() }},
	{[]string{"istanbul"}, func(c *params.ChainConfig) { c.IstanbulBlock = fromGenesis() }},
	{[]string{"muirglacier"}, func(c *params.ChainConfig) { c.MuirGlacierBlock = fromGenesis() }},
	{[]string{"berlin"}, func(c *params.ChainConfig) { c.BerlinBlock = fromGenesis() }},
	{[]string{"london"}, func(c *params.ChainConfig) { c.LondonBlock = fromGenesis() }},
	{[]string{"arrowglacier"}, func(c *params.ChainConfig) { c.ArrowGlacierBlock = fromGenesis() }},
	{[]string{"grayglacier"}, func(c *params.ChainConfig) { c.GrayGlacierBlock = fromGenesis() }},
	{[]string{"paris", "merge"}, func(c *params.ChainConfig) {
		c.TerminalTotalDifficulty, c.MergeNetsplitBlock = fromGenesis(), fromGenesis()
	}},
	{[]string{"shanghai"}, func(c *params.ChainConfig) { c.ShanghaiTime = fromGenesisTime() }},
	{[]string{"cancun"}, func(c *params.ChainConfig) {
		c.CancunTime = fromGenesisTime()
		c.BlobScheduleConfig = &params.BlobScheduleConfig{Cancun: params.DefaultCancunBlobConfig}
	}},
	{[]string{"prague"}, func(c *params.ChainConfig) {
		c.PragueTime = fromGenesisTime()
		c.BlobScheduleConfig.Prague = params.DefaultPragueBlobConfig
	}},
	// Osaka changes no blob parameters: it inherits Prague's entry.
	{[]string{"osaka"}, func(c *params.ChainConfig) { c.OsakaTime = fromGenesisTime() }},
	// Blob-parameter-only forks: only the blob schedule changes.
	{[]string{"bpo1"}, func(c *params.ChainConfig) {
		c.BPO1Time, c.BlobScheduleConfig.BPO1 = fromGenesisTime(), params.DefaultBPO1BlobConfig
	}},
	{[]string{"bpo2"}, func(c *params.ChainConfig) {
		c.BPO2Time, c.BlobScheduleConfig.BPO2 = fromGenesisTime(), params.DefaultBPO2BlobConfig
	}},
	{[]string{"bpo3"}, func(c *params.ChainConfig) {
		c.BPO3Time, c.BlobScheduleConfig.BPO3 = fromGenesisTime(), params.DefaultBPO3BlobConfig
	}},
	{[]string{"bpo4"}, func(c *params.ChainConfig) {
		c.BPO4Time, c.BlobScheduleConfig.BPO4 = fromGenesisTime(), params.DefaultBPO4BlobConfig
	}},
}

// Hardforks returns the hardfork names HardforkConfig accepts, oldest first
// (canonical names; HardforkConfig also takes the aliases listed in its doc).
func Hardforks() []string {
	out := make([]string, len(hardforks))
	for i, h := range hardforks {
		out[i] = h.names[0]
	}
	return out
}

// HardforkConfig returns rules with every fork up to and including name
// active from genesis and none after it, for chainID. Names are
// case-insensitive and spelled as anvil and geth spell them: frontier,
// homestead, tangerine (tangerinewhistle, eip150), spurious (spuriousdragon,
// eip158), byzantium, constantinople, petersburg, istanbul, muirglacier,
// berlin, london, arrowglacier, grayglacier, paris (merge), shanghai, cancun,
// prague, osaka, and the blob-parameter-only forks bpo1 to bpo4 (anvil's
// default hardfork is reported as Bpo1); "-", "_" and spaces are ignored.
// From paris on the terminal total difficulty is 0 (merged from genesis);
// cancun and later carry go-ethereum's default blob parameters
// (params.DefaultCancunBlobConfig, DefaultPragueBlobConfig, DefaultBPO1BlobConfig ...).
func HardforkConfig(name string, chainID uint64) (*params.ChainConfig, error) {
	key := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(strings.TrimSpace(name)))
	last := -1
	for i, h := range hardforks {
		for _, n := range h.names {
			if n == key {
				last = i
			}
		}
	}
	if last < 0 {
		var names []string
		for _, h := range hardforks {
			names = append(names, strings.Join(h.names, "/"))
		}
		return nil, fmt.Errorf("evm: unknown hardfork %q; known (oldest first): %s", name, strings.Join(names, ", "))
	}
	c := &params.ChainConfig{ChainID: new(big.Int).SetUint64(chainID)}
	for _, h := range hardforks[:last+1] {
		h.apply(c)
	}
	return c, nil
}

// LoadChainConfig parses fork rules from JSON: either a genesis file
// ({"config": {...}, "alloc": ...}, as geth init and anvil --init read) or a
// bare chain config (as debug_chainConfig returns). The config must name its
// chainId.
func LoadChainConfig(data []byte) (*params.ChainConfig, error) {
	c, err := decodeChainConfig(data)
	if err != nil {
		return nil, err
	}
	if err := c.CheckConfigForkOrder(); err != nil {
		return nil, fmt.Errorf("evm: chain config: %w", err)
	}
	return c, nil
}

// decodeChainConfig parses a genesis file or a chain config without
// LoadChainConfig's fork-order check: rules recorded with state (a fork
// cache) are the rules that state was executed with, and go-ethereum
// executes configs its genesis check would refuse (its own tracer fixtures
// have some).
func decodeChainConfig(data []byte) (*params.ChainConfig, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("evm: chain config: not a JSON object: %w", err)
	}
	raw := json.RawMessage(data)
	if inner, ok := probe["config"]; ok {
		raw = inner
	}
	var c params.ChainConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("evm: chain config: %w", err)
	}
	if c.ChainID == nil {
		return nil, errors.New(`evm: chain config has no chainId: give a genesis file ({"config":{"chainId":...}}) or a chain config with "chainId"`)
	}
	return &c, nil
}

// BlobBaseFee is the blob base fee of a block with the given excess blob gas
// under chain's rules: nil before Cancun, an error for a Cancun block whose
// rules carry no blob schedule.
func BlobBaseFee(chain *params.ChainConfig, number, time, excessBlobGas uint64) (*big.Int, error) {
	num := new(big.Int).SetUint64(number)
	if !chain.IsCancun(num, time) {
		return nil, nil
	}
	if eip4844.MaxBlobsPerBlock(chain, time) == 0 {
		return nil, fmt.Errorf("evm: block %d runs Cancun or later but the chain config has no blob schedule for it (add blobSchedule to the config)", number)
	}
	eg := excessBlobGas
	return eip4844.CalcBlobFee(chain, &types.Header{Number: num, Time: time, ExcessBlobGas: &eg, Difficulty: new(big.Int)}), nil
}
