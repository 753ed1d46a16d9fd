package afrspec

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/agentflightrecorder/afr/world/fuzz"
)

// EnvCampaignShards is the environment variable with the number of specs
// CampaignShards splits a campaign into when its caller gives none.
const EnvCampaignShards = "AFR_CAMPAIGN_SHARDS"

// CampaignShards declares one invariant campaign as n specs, "text (shard
// i/n)", each running shard i of it (fuzz.Campaign.Shard: its share of the
// runs, from a seed of its own), so that `ginkgo -p` runs the shards on
// several processes at once. campaign builds the campaign inside the spec,
// on the World it returns (built in a BeforeSuite or BeforeAll of each
// process). n ≤ 0 means $AFR_CAMPAIGN_SHARDS, else Ginkgo's number of
// processes (1 without -p). With n = 1 the one spec is named text and runs
// the campaign unsharded. The shards draw other sequences for another n,
// so fix n (or $AFR_CAMPAIGN_SHARDS) where draws must be the same on every
// machine. args are passed to each It (labels, timeouts).
//
//	afrspec.CampaignShards("keeps the pool solvent", 0, func(ctx SpecContext) (*afrspec.World, fuzz.Campaign) {
//		return w, fuzz.Campaign{Targets: …, Senders: …, Invariants: …}
//	}, Label("fuzz"))
func CampaignShards(text string, n int, campaign func(ctx ginkgo.SpecContext) (*World, fuzz.Campaign), args ...any) bool {
	if n <= 0 {
		n = campaignShards()
	}
	for i := range n {
		name, shard := text, fuzz.Shard{Index: i, Count: n}
		if n > 1 {
			name = fmt.Sprintf("%s (shard %s)", text, shard)
		}
		ginkgo.It(name, append(slices.Clone(args), func(ctx ginkgo.SpecContext) {
			w, c := campaign(ctx)
			c.Shard = shard
			w.Invariants(ctx, c)
		})...)
	}
	return true
}

// campaignShards is the number of shards of a campaign whose caller gives
// none: $AFR_CAMPAIGN_SHARDS, else Ginkgo's number of processes. A bad
// value stops the suite as its tree is built, with a message that says so.
func campaignShards() int {
	if v, ok := os.LookupEnv(EnvCampaignShards); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			panic(fmt.Sprintf("afrspec: $%s = %q: want a number of shards ≥ 1", EnvCampaignShards, v))
		}
		return n
	}
	suite, _ := ginkgo.GinkgoConfiguration()
	return suite.ParallelTotal
}

// EnvShard is the environment variable that runs one shard of every suite
// importing afrspec, to split the specs across CI machines: "i/n" (1 ≤ i ≤
// n) runs the specs of shard i and skips the others. A spec's shard is a
// hash of its full text (its containers' texts and its own) modulo n, so
// every machine, with the same sources, makes the same split and every
// spec runs in exactly one shard; the specs of an Ordered container go to
// the shard of the container's full text, all together. Each spec is
// labelled "shard-i-of-n" in the reports. The other shards' specs are
// skipped (ginkgo.Skip in their first setup node, so BeforeEach and
// BeforeAll do not run for them); BeforeSuite runs in every shard. Unset
// or empty, every spec runs.
const EnvShard = "AFR_SHARD"

func init() {
	if v := os.Getenv(EnvShard); v != "" {
		s := &specShards{}
		s.index, s.count, s.err = parseShard(v)
		ginkgo.AddTreeConstructionNodeArgsTransformer(s.transform)
	}
}

// parseShard parses $AFR_SHARD's "i/n".
func parseShard(v string) (index, count int, err error) {
	is, ns, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("afrspec: $%s = %q: want i/n with 1 ≤ i ≤ n, e.g. 2/4", EnvShard, v)
	}
	return i, n, nil
}

// specShards labels each spec with its shard as the tree is built and
// skips the specs of other shards.
type specShards struct {
	index, count int
	err          error
	texts        []string // the texts of the containers being built
	ordered      string   // the full text of the outermost Ordered container being built, if any
}

// shardOf is the shard (1…n) of a spec or Ordered container whose full
// text (containers' and own texts, joined by spaces, as Ginkgo's
// FullText) is text, among n.
func shardOf(text string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(text))
	return int(h.Sum64()%uint64(n)) + 1
}

// label is the label of shard i of n.
func (s *specShards) label(i int) string { return fmt.Sprintf("shard-%d-of-%d", i, s.count) }

func (s *specShards) transform(nodeType types.NodeType, _ ginkgo.Offset, text string, args []any) (string, []any, []error) {
	if s.err != nil {
		return text, args, []error{s.err}
	}
	switch nodeType {
	case types.NodeTypeContainer:
		full := strings.Join(append(slices.Clone(s.texts), text), " ")
		outer := s.ordered == "" && slices.ContainsFunc(args, func(a any) bool { return a == ginkgo.Ordered })
		args = wrap(args, func(body func()) func() {
			return func() {
				s.texts = append(s.texts, text)
				if outer {
					s.ordered = full
				}
				defer func() {
					s.texts = s.texts[:len(s.texts)-1]
					if outer {
						s.ordered = ""
					}
				}()
				body()
			}
		}, nil)
	case types.NodeTypeIt:
		key := s.ordered
		if key == "" {
			key = strings.Join(append(slices.Clone(s.texts), text), " ")
		}
		args = append(args, ginkgo.Label(s.label(shardOf(key, s.count))))
		args = s.skipOthers(args)
	case types.NodeTypeBeforeEach, types.NodeTypeJustBeforeEach, types.NodeTypeBeforeAll:
		args = s.skipOthers(args)
	}
	return text, args, nil
}

// skipOthers makes the body in args skip the spec first when it is
// labelled with another shard.
func (s *specShards) skipOthers(args []any) []any {
	mine := s.label(s.index)
	check := func() {
		labels := ginkgo.CurrentSpecReport().Labels()
		if slices.Contains(labels, mine) {
			return
		}
		for _, l := range labels {
			if strings.HasPrefix(l, "shard-") {
				ginkgo.Skip(fmt.Sprintf("%s=%d/%d: this spec is in %s", EnvShard, s.index, s.count, l))
			}
		}
	}
	return wrap(args, func(body func()) func() {
		return func() { check(); body() }
	}, func(body func(context.Context)) func(context.Context) {
		return func(ctx context.Context) { check(); body(ctx) }
	})
}

// wrap replaces the body among a node's args (func(), func(SpecContext)
// or func(context.Context)) by plain(body) or ctx(body); a nil wrapper
// leaves that kind of body as it is.
func wrap(args []any, plain func(func()) func(), ctx func(func(context.Context)) func(context.Context)) []any {
	out := slices.Clone(args)
	for i, a := range out {
		switch body := a.(type) {
		case func():
			if plain != nil {
				out[i] = plain(body)
			}
		case func(ginkgo.SpecContext):
			if ctx != nil {
				out[i] = func(c ginkgo.SpecContext) { ctx(func(context.Context) { body(c) })(c) }
			}
		case func(context.Context):
			if ctx != nil {
				out[i] = ctx(body)
			}
		}
	}
	return out
}
