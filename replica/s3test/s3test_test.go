package s3test_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/agentflightrecorder/afr/replica/s3test"
)

// The server the tests use does what the replica relies on: a conditional
// write (If-None-Match: *) of an object already there is refused and
// leaves it as it was.
func TestServerRefusesOverwrite(t *testing.T) {
	s := s3test.Start(t)
	s.Bucket(t, "bucket", false)
	ctx := context.Background()
	c := s.Client()
	put := func(data string) error {
		opts := minio.PutObjectOptions{}
		opts.SetMatchETagExcept("*")
		_, err := c.PutObject(ctx, "bucket", "k", bytes.NewReader([]byte(data)), int64(len(data)), opts)
		return err
	}
	if err := put("first"); err != nil {
		t.Fatal(err)
	}
	err := put("second")
	if r := minio.ToErrorResponse(err); r.StatusCode != 412 {
		t.Fatalf("second conditional write: %v (status %d), want 412 Precondition Failed", err, r.StatusCode)
	}
	o, err := c.GetObject(ctx, "bucket", "k", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(o)
	if err != nil || string(got) != "first" {
		t.Fatalf("object = %q, %v; want first", got, err)
	}
}
