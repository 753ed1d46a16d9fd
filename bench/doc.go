// Package bench is the paper's evaluation, regenerated: each table of the
// paper's evaluation measured on this system, in one run, printed beside
// the paper's own figures (docs/REPRODUCTION.md is one such run; `afr bench`
// runs it). Every table is written as Markdown, JSON and plots (PNG and
// SVG) into an output folder.
//
//   - Table II (table2.go), the cost of each mechanism: the ablation ladder
//     of package bench/ladder — baseline (json.Marshal + buffered append),
//     schema (deterministic CBOR, framed segments), chain (+ SHA-256 hash
//     chain), merkle (+ RFC 6962 epochs of 100), full (the recorder:
//   - commitments, per-event AES-GCM keys, salts) — records the synthetic
//     workload (package recorder/workload) at N = 100, 1K and 10K events
//     for several seeds; each call to Record is timed. Median, P95 and P99
//     per event over all seeds, bytes written per event, and each rung's
//     median as a multiple of the baseline's in the same run. Plot: the
//     latency CDF of each rung.
//   - Table III (table3.go), the cost of anchoring: a log is recorded and
//     its epochs anchored on a real chain (the embedded go-ethereum chain,
//     or anvil), the gas of each anchor transaction read from its receipt;
//     Project turns measured gas into the cost of anchoring at each epoch
//     size (10 to 1,000 events), per 100,000 events and per day at one
//     event per second, on L1 and L2 at the paper's fees.
//   - Table IV (table4.go), tamper detection: every attack class of
//     verifier/tamper (the paper's edit, delete, reorder and fork, and the
//     classes the paper did not test) at the paper's ten positions of an
//     anchored log (8 spread inside, N−2, N−1), each copy verified by
//     verifier.VerifyLog against the anchors: verdict and finding per cell;
//     and clean logs of other seeds, which must all verify (false
//     positives).
//   - RQ1 (rq1.go), real agent runs: the SWE-agent trajectories kept beside
//     the project, else the one committed with it (internal/traces),
//     recorded as event JSON: their actions
//     by category, the per-event cost of the full recorder and of the
//     baseline on them, and each log's verdict.
//   - RQ4 (rq4.go), forensics: the incident scenario of package world
//     (RecordIncident) recorded on a chain, the causal chain rebuilt by a
//     structured query and the grep baselines over the plain JSON log,
//     scored against the incident's truth.
//
// Timings come from a shared machine: each is compared with a baseline
// measured in the same run, never with a fixed bar.
package bench
