module github.com/agentflightrecorder/afr/checkpoint/witnessinterop

go 1.26.0

require (
	github.com/agentflightrecorder/afr v0.0.0
	github.com/transparency-dev/formats v0.1.2-0.20260710124811-af9e607161b6
	golang.org/x/mod v0.41.0
)

require (
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

require (
	filippo.io/mldsa v0.0.0-20260215214346-43d0283efc3e // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/fxamacker/cbor/v2 v2.10.0 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/transparency-dev/merkle v0.0.3-0.20260707140218-77df88e508fa // indirect
	github.com/transparency-dev/witness v0.0.0-20260720115447-2e1c6971d19e
	github.com/x448/float16 v0.8.4 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.46.0 // indirect
	go.opentelemetry.io/otel/metric v1.46.0 // indirect
	go.opentelemetry.io/otel/trace v1.46.0 // indirect
	golang.org/x/crypto v0.57.0 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
)

replace github.com/agentflightrecorder/afr => ../..
