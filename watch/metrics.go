package watch

import (
	"github.com/prometheus/client_golang/prometheus"
)

// The metrics of a Watcher (docs/WATCH.md, "Metrics"). Times are Unix
// timestamps, as Prometheus keeps them: an age is time() − the metric.
var (
	descPolls     = prometheus.NewDesc("afr_watch_polls_total", "Polls the watcher has run.", nil, nil)
	descBlock     = prometheus.NewDesc("afr_watch_block", "The latest block the watcher has read.", nil, nil)
	descActive    = prometheus.NewDesc("afr_watch_alarms_active", "Alarms raised and not cleared, by kind.", []string{"alarm"}, nil)
	descRaised    = prometheus.NewDesc("afr_watch_alarms_raised_total", "Alarms raised since the watcher started, by kind.", []string{"alarm"}, nil)
	logLabels     = []string{"operator", "log"}
	descEpoch     = prometheus.NewDesc("afr_watch_anchored_epoch", "The last epoch of the log anchored on chain, per log or in a batch.", logLabels, nil)
	descAnchorAt  = prometheus.NewDesc("afr_watch_last_anchor_timestamp_seconds", "The block time of the log's last anchor.", logLabels, nil)
	descCpSize    = prometheus.NewDesc("afr_watch_checkpoint_size", "Epochs covered by the largest checkpoint of the log that verified.", logLabels, nil)
	descReplica   = prometheus.NewDesc("afr_watch_replica_epochs", "Epochs the log's replica holds.", logLabels, nil)
	descReplicaAt = prometheus.NewDesc("afr_watch_replica_advanced_timestamp_seconds", "When the watcher last saw the log's replica advance.", logLabels, nil)
	descCosigned  = prometheus.NewDesc("afr_watch_cosigned_size", "The size of the log's last checkpoint the watcher cosigned as a witness.", logLabels, nil)
)

// Collector returns the watcher's metrics as a prometheus.Collector, read
// from its state at each scrape.
func (w *Watcher) Collector() prometheus.Collector { return collector{w} }

type collector struct{ w *Watcher }

// Describe implements prometheus.Collector.
func (collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descPolls, descBlock, descActive, descRaised, descEpoch, descAnchorAt, descCpSize, descReplica, descReplicaAt, descCosigned} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c collector) Collect(ch chan<- prometheus.Metric) {
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(descPolls, prometheus.CounterValue, float64(w.polls))
	ch <- prometheus.MustNewConstMetric(descBlock, prometheus.GaugeValue, float64(w.block))
	active := map[Kind]int{}
	for _, a := range w.alarms.active {
		active[a.Alarm]++
	}
	for _, k := range Kinds() {
		ch <- prometheus.MustNewConstMetric(descActive, prometheus.GaugeValue, float64(active[k]), string(k))
		ch <- prometheus.MustNewConstMetric(descRaised, prometheus.CounterValue, float64(w.alarms.raised[k]), string(k))
	}
	for _, op := range w.ops {
		for _, l := range op.logs {
			labels := []string{op.cfg.Address.Hex(), l.cfg.ID.String()}
			if l.lastEpoch != nil {
				ch <- prometheus.MustNewConstMetric(descEpoch, prometheus.GaugeValue, float64(*l.lastEpoch), labels...)
				ch <- prometheus.MustNewConstMetric(descAnchorAt, prometheus.GaugeValue, float64(l.lastTime), labels...)
			}
			if l.cp != nil {
				ch <- prometheus.MustNewConstMetric(descCpSize, prometheus.GaugeValue, float64(l.cp.Size), labels...)
			}
			if l.pos != nil {
				ch <- prometheus.MustNewConstMetric(descReplica, prometheus.GaugeValue, float64(l.pos.Epochs), labels...)
				ch <- prometheus.MustNewConstMetric(descReplicaAt, prometheus.GaugeValue, float64(l.advancedAt.Unix()), labels...)
			}
			if w.opts.Witness != nil && l.cfg.Checkpoint != "" {
				ch <- prometheus.MustNewConstMetric(descCosigned, prometheus.GaugeValue, float64(l.cosigned), labels...)
			}
		}
	}
}
