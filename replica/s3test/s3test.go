// Package s3test starts a real S3-compatible server for tests and
// benchmarks: SeaweedFS's weed (Apache-2.0), built by `make s3server` into
// bin/tools, on loopback ports, with its data in a temporary directory.
// It is test code only: no binary of AFR links it.
package s3test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/agentflightrecorder/afr/replica"
)

// The keys of the server's one identity.
const (
	AccessKey = "afr-test"
	SecretKey = "afr-test-secret-key"
)

// Server is a running weed server with an S3 endpoint on loopback.
type Server struct {
	// Endpoint is the S3 endpoint, http://127.0.0.1:port.
	Endpoint string
	client   *minio.Client
}

// Binary returns the weed binary: $AFR_WEED, else the newest
// bin/tools/weed-* of the module (what `make s3server` builds), else weed
// on PATH.
func Binary() (string, error) {
	if p := os.Getenv("AFR_WEED"); p != "" {
		return p, nil
	}
	if root, err := moduleRoot(); err == nil {
		if m, _ := filepath.Glob(filepath.Join(root, "bin", "tools", "weed-*")); len(m) > 0 {
			sort.Strings(m)
			return m[len(m)-1], nil
		}
	}
	if p, err := exec.LookPath("weed"); err == nil {
		return p, nil
	}
	return "", errors.New("s3test: no weed binary (hint: run `make s3server`, which builds SeaweedFS's weed into bin/tools, or set AFR_WEED)")
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Start starts a server for a test or benchmark and stops it in
// t.Cleanup. It fails the test when weed cannot be started or does not
// answer within a minute.
func Start(t testing.TB) *Server {
	t.Helper()
	s, stop, err := StartShared()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return s
}

// StartShared starts a server that the caller stops with stop (which also
// removes its data): for one server shared by the tests of a package,
// stopped in its TestMain.
func StartShared() (s *Server, stop func(), err error) {
	bin, err := Binary()
	if err != nil {
		return nil, nil, err
	}
	for range 3 { // a port taken between choosing it and weed binding it: again
		if s, stop, err = start(bin); err == nil {
			return s, stop, nil
		}
	}
	return nil, nil, fmt.Errorf("s3test: %w", err)
}

func start(bin string) (*Server, func(), error) {
	dir, err := os.MkdirTemp("", "afr-s3test-")
	if err != nil {
		return nil, nil, err
	}
	s, stop, err := startIn(dir, bin)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return s, func() { stop(); os.RemoveAll(dir) }, nil
}

func startIn(dir, bin string) (*Server, func(), error) {
	cfg := filepath.Join(dir, "s3.json")
	identities := fmt.Sprintf(`{"identities":[{"name":"afr","credentials":[{"accessKey":%q,"secretKey":%q}],"actions":["Admin","Read","Write","List","Tagging"]}]}`, AccessKey, SecretKey)
	if err := os.WriteFile(cfg, []byte(identities), 0o600); err != nil {
		return nil, nil, err
	}
	ports, err := freePorts(8)
	if err != nil {
		return nil, nil, err
	}
	p := func(i int) string { return strconv.Itoa(ports[i]) }
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		return nil, nil, err
	}
	args := []string{"mini", "-dir=" + data, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.port=" + p(0), "-master.port.grpc=" + p(1), "-volume.port=" + p(2), "-volume.port.grpc=" + p(3),
		"-filer.port=" + p(4), "-filer.port.grpc=" + p(5), "-s3.port=" + p(6), "-s3.port.grpc=" + p(7),
		"-s3.config=" + cfg, "-s3.port.iceberg=0", "-s3.port.lance=0", "-webdav=false", "-admin.ui=false",
		"-admin.port.legacy=0", "-master.telemetry=false", "-s3.autoCreateBucket=false",
		"-filer.localSocket=" + filepath.Join(dir, "filer.sock"), "-s3.localSocket=" + filepath.Join(dir, "s3.sock")}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	logName := filepath.Join(dir, "weed.log")
	logf, err := os.Create(logName)
	if err != nil {
		return nil, nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, nil, err
	}
	// exited is closed when weed has exited (waitErr says how): closed, not
	// sent on, so that ready and stop can both see it.
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); logf.Close(); close(exited) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-exited
			}
		})
	}
	s := &Server{Endpoint: "http://127.0.0.1:" + p(6)}
	s.client, err = minio.New("127.0.0.1:"+p(6), &minio.Options{Creds: credentials.NewStaticV4(AccessKey, SecretKey, ""), BucketLookup: minio.BucketLookupPath})
	if err != nil {
		stop()
		return nil, nil, err
	}
	if err := s.ready(exited, func() error { return waitErr }); err != nil {
		stop()
		b, _ := os.ReadFile(logName)
		return nil, nil, fmt.Errorf("%v; its log ends:\n%s", err, tail(b, 2000))
	}
	return s, stop, nil
}

// ready waits until the S3 endpoint answers a signed request.
// exited is closed once weed has exited, with waitErr's error.
func (s *Server) ready(exited <-chan struct{}, waitErr func() error) error {
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := s.client.ListBuckets(ctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("weed exited before it was ready: %v", waitErr())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("weed did not answer within a minute: %v", err)
		}
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		port := l.Addr().(*net.TCPAddr).Port
		if port+10000 > 65535 {
			continue // weed derives some ports by adding 10000
		}
		// The derived port must be free too (another weed's, say, is not).
		d, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000))
		if err != nil {
			continue
		}
		ls = append(ls, d)
		ports = append(ports, port)
	}
	return ports, nil
}

// Bucket creates a bucket, with S3 Object Lock when lock is set.
func (s *Server) Bucket(t testing.TB, name string, lock bool) {
	t.Helper()
	if err := s.client.MakeBucket(context.Background(), name, minio.MakeBucketOptions{ObjectLocking: lock}); err != nil {
		t.Fatalf("s3test: creating bucket %s: %v", name, err)
	}
}

// Config returns the replica configuration that reaches the server (or,
// with a proxy's endpoint, the proxy in front of it).
func (s *Server) Config() replica.Config {
	return replica.Config{Endpoint: s.Endpoint, Region: "us-east-1", AccessKey: AccessKey, SecretKey: SecretKey}
}

// Env returns the environment variables with which S3 tools, and afr,
// reach the server.
func (s *Server) Env() []string {
	return []string{"AWS_ENDPOINT_URL=" + s.Endpoint, "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=" + AccessKey, "AWS_SECRET_ACCESS_KEY=" + SecretKey}
}

// Client returns a client of the server with its keys, for tests that
// look at or change the bucket directly (as an attacker or an auditor).
func (s *Server) Client() *minio.Client { return s.client }
