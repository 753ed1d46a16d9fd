// Command afr is the Agent Flight Recorder's command-line tool. Its
// commands, by what they are for:
//
//   - Recording into a tamper-evident log: record, serve (the log's one
//     writer behind a local HTTP API), mcp-proxy (an MCP server's tool
//     calls), otlp (OpenTelemetry GenAI spans), hook (coding agents' hook
//     events, through serve), import (other agent frameworks'
//     trajectories), seal, erase (crypto-erase an epoch).
//   - Inspecting a log: status, proof, query, report (an HTML page).
//   - Anchoring on a chain: chain (a local chain), deploy, keys, anchor.
//   - Verifying and disclosing: verify, disclose, anchors, checkpoint
//     (witness-cosigned checkpoints), verify-page (a verifier for browsers),
//     watch (an outside party's watcher of anchors, checkpoints and
//     replicas).
//   - Transactions: replay (a mined one, decoded), simulate (on a fork).
//   - The whole system: demo, bench (the paper's evaluation).
//
// The commands that anchor or verify on a chain name it with the same flags: --chain
// FILE (from afr chain) or --deployment FILE (from afr deploy), --rpc URL,
// --contract ADDR, and --key FILE to sign with.
//
// Run "afr help" for the commands and "afr help <command>" for one of them.
// Exit codes: 0 success, 1 error, 2 usage error, 3 verification found
// tampering, 4 verification found the log incomplete, 5 afr anchor found an
// epoch anchored by another writer with the same operator key, 6 afr replay
// found that the replay does not match the chain's receipt, 7 afr watch
// --once found alarms.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"time"
)

// Exit codes.
const (
	exitOK         = 0
	exitError      = 1
	exitUsage      = 2
	exitTampered   = 3
	exitIncomplete = 4
)

// command is one afr subcommand.
type command struct {
	name    string
	summary string
	usage   string // flags are appended by the flag set
	run     func(env *env, args []string) error
}

// env carries the process's streams so commands are testable.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// usageError is returned for bad invocations: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// codeError carries a specific exit code, with an error to print (nil when
// the message was already printed).
type codeError struct {
	code int
	err  error
}

func (e codeError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}
func (e codeError) Unwrap() error { return e.err }

func main() {
	os.Exit(run(&env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:]))
}

func run(e *env, args []string) int {
	if len(args) == 0 {
		mainUsage(e.stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				// The command defines its flags as it runs: -h prints them.
				c.run(e, []string{"-h"})
				return exitOK
			}
			fmt.Fprintf(e.stderr, "afr: unknown command %q\n", args[1])
			return exitUsage
		}
		mainUsage(e.stdout)
		return exitOK
	case "-version", "--version", "version":
		fmt.Fprintln(e.stdout, "afr", version())
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "afr: unknown command %q (hint: afr help lists the commands)\n", args[0])
		return exitUsage
	}
	err := c.run(e, args[1:])
	var ue usageError
	var ce codeError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "afr %s: %s\n(hint: afr help %s)\n", c.name, ue.msg, c.name)
		return exitUsage
	case errors.As(err, &ce):
		if ce.err != nil {
			fmt.Fprintf(e.stderr, "afr %s: %s\n", c.name, withHint(ce.err))
		}
		return ce.code
	default:
		fmt.Fprintf(e.stderr, "afr %s: %s\n", c.name, withHint(err))
		return exitError
	}
}

func mainUsage(w io.Writer) {
	fmt.Fprint(w, `afr — the Agent Flight Recorder

Usage: afr <command> [flags] [arguments]

Commands:
`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, `
Run "afr help <command>" for a command's flags and examples.
Exit codes: 0 ok, 1 error, 2 usage, 3 tampered, 4 incomplete,
5 anchor: another writer uses the operator key,
6 replay: the replay does not match the receipt,
7 watch --once: alarms hold.
`)
}

// flags returns the command's flag set; -h prints its usage text and
// flags on stdout (see parse).
func (c *command) flags(e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.Usage = func() {
		fs.SetOutput(e.stdout)
		fmt.Fprintf(e.stdout, "%s\n\nFlags:\n", strings.TrimSpace(c.usage))
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags. Help (-h, --help) is printed on stdout and returns
// flag.ErrHelp (exit 0); a bad flag is a usage error naming it as the user
// typed it, printed with a hint by run (exit 2).
func parse(fs *flag.FlagSet, args []string) error {
	printUsage := fs.Usage
	fs.Usage = func() {} // the flag package calls it on errors too
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = printUsage
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage()
		return err
	case err != nil:
		return usageError{flagError(fs, err, args)}
	}
	return nil
}

// flagError rewrites the flag package's messages to name flags with the
// dashes the user typed ("-epoch-size" given as --epoch-size) and to say
// what a value must be instead of "parse error".
func flagError(fs *flag.FlagSet, err error, args []string) string {
	msg := err.Error()
	for _, a := range args {
		dashes := a[:len(a)-len(strings.TrimLeft(a, "-"))]
		name, _, _ := strings.Cut(a[len(dashes):], "=")
		if dashes == "" || len(dashes) > 2 || name == "" || !strings.Contains(msg, " -"+name) {
			continue
		}
		if f := fs.Lookup(name); f != nil && strings.HasSuffix(msg, ": parse error") {
			if g, ok := f.Value.(flag.Getter); ok {
				msg = strings.TrimSuffix(msg, "parse error") + "want " + typeName(g.Get())
			}
		}
		return strings.Replace(msg, " -"+name, " "+dashes+name, 1)
	}
	return msg
}

// typeName says what a flag of the flag package's value types takes.
func typeName(v any) string {
	switch v.(type) {
	case int, int64:
		return "an integer"
	case uint, uint64:
		return "an integer of 0 or more"
	case float64:
		return "a number"
	case time.Duration:
		return "a duration such as 90s, 15m or 2h"
	case bool:
		return "true or false"
	}
	return "a valid value"
}

func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
