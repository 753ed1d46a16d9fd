package main

import (
	"fmt"
	"strconv"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/replica"
)

func init() {
	register(&command{name: "erase", summary: "crypto-erase the payloads of one epoch", run: runErase, usage: `
Usage: afr erase --log DIR --epoch N --yes [--keys DIR]

Destroys epoch N's key material (its salt in the key directory), so the
payloads of that epoch can no longer be decrypted by anyone, the operator
included. Records, proofs and anchors are untouched and still verify; "afr
verify --level open" reports the epoch's payloads as erased. This cannot be
undone, hence --yes. It is a mechanism, not a legal claim: copies of the key
directory or backups are outside its reach (docs/SPEC.md, "Keys"); a copy
made by afr replicate --keys-to drops the salt at the replicator's next
look (docs/REPLICA.md, "Keys").

Example:
  afr erase --log ./afr-log --epoch 3 --yes`})
}

func runErase(e *env, args []string) error {
	fs := commands["erase"].flags(e)
	logDir := fs.String("log", "", "log directory (required)")
	epochStr := fs.String("epoch", "", "epoch to erase (required)")
	keyDir := fs.String("keys", "", "key directory (default <log>/keys)")
	yes := fs.Bool("yes", false, "confirm: the epoch's payloads become unrecoverable")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *logDir == "" || *epochStr == "" {
		return usageError{"--log and --epoch are required"}
	}
	epoch, err := strconv.ParseUint(*epochStr, 10, 64)
	if err != nil {
		return usageError{"--epoch: not an epoch number: " + *epochStr}
	}
	if !*yes {
		return usageError{"erasing cannot be undone: add --yes"}
	}
	if replica.IsURL(*keyDir) {
		return usageError{"--keys: erase the local key directory; its copy (afr replicate --keys-to) drops the salt at the replicator's next look"}
	}
	l, err := recorder.OpenLog(*logDir)
	if err != nil {
		return err
	}
	var sealed uint64
	if err := l.Epochs(func(t uint64, _ []byte) error { sealed = t + 1; return nil }); err != nil {
		return err
	}
	if epoch >= sealed {
		return fmt.Errorf("epoch %d is not sealed (the log has %d sealed epochs): erasing the open epoch would lose events still being written", epoch, sealed)
	}
	kr, err := logKeys(e, "erase", *keyDir, l)
	if err != nil {
		return err
	}
	defer kr.Close()
	if err := kr.Erase(epoch); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "epoch %d erased: its payloads can no longer be decrypted; hashes, proofs and anchors still verify\n", epoch)
	return nil
}
