package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The CLI's behaviour is specified by the scripts in testdata/*.txtar.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"afr": func() { os.Exit(run(&env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:])) },
	})
}

func TestScripts(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{Dir: "testdata", Setup: func(e *testscript.Env) error {
		// $REPO is the repository root: the docs' examples read its fixtures.
		e.Setenv("REPO", root)
		return nil
	}, Condition: func(cond string) (bool, error) {
		// [npm:NAME]: the npm program NAME is installed (make setup).
		name, ok := strings.CutPrefix(cond, "npm:")
		if !ok {
			return false, fmt.Errorf("unknown condition %q", cond)
		}
		_, err := os.Stat(filepath.Join(root, "node_modules", ".bin", name))
		return err == nil, nil
	}, Cmds: map[string]func(*testscript.TestScript, bool, []string){
		// flipbyte FILE OFFSET flips the low bit of one byte (negative
		// offsets count from the end).
		// waitfile FILE waits (up to 60s) until FILE exists.
		"waitfile": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 1 {
				ts.Fatalf("usage: waitfile FILE")
			}
			name := ts.MkAbs(args[0])
			for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(name); err == nil {
					return
				}
			}
			ts.Fatalf("%s did not appear", args[0])
		},
		// api ADDRFILE TOKENFILE METHOD PATH BODYFILE OUTFILE calls the API
		// of afr serve (address and bearer token read from the files; BODYFILE
		// "-" for none) and writes the status, a newline and the body to OUTFILE.
		"api": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 6 {
				ts.Fatalf("usage: api ADDRFILE TOKENFILE METHOD PATH BODYFILE OUTFILE")
			}
			var body io.Reader = http.NoBody
			if args[4] != "-" {
				body = strings.NewReader(ts.ReadFile(args[4]))
			}
			req, err := http.NewRequest(args[2], "http://"+strings.TrimSpace(ts.ReadFile(args[0]))+args[3], body)
			ts.Check(err)
			req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(ts.ReadFile(args[1])))
			resp, err := http.DefaultClient.Do(req)
			ts.Check(err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			ts.Check(err)
			ts.Check(os.WriteFile(ts.MkAbs(args[5]), fmt.Appendf(nil, "%d\n%s", resp.StatusCode, b), 0o600))
		},
		// envfile NAME FILE sets $NAME to FILE's content, trimmed (e.g. the
		// address afr serve --addr-file wrote).
		"envfile": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 2 {
				ts.Fatalf("usage: envfile NAME FILE")
			}
			ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile(args[1])))
		},
		"flipbyte": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 2 {
				ts.Fatalf("usage: flipbyte FILE OFFSET")
			}
			name := ts.MkAbs(args[0])
			b, err := os.ReadFile(name)
			ts.Check(err)
			off, err := strconv.Atoi(args[1])
			ts.Check(err)
			if off < 0 {
				off += len(b)
			}
			b[off] ^= 1
			ts.Check(os.WriteFile(name, b, 0o600))
		},
	}})
}
