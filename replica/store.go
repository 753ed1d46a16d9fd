package replica

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Scheme is the URL scheme of a replica: s3://bucket/prefix.
const Scheme = "s3://"

// IsURL reports whether s names a replica rather than a local directory.
func IsURL(s string) bool { return strings.HasPrefix(s, Scheme) }

// Config says how to reach the object storage. Zero fields are taken from
// the environment as S3 tools take them: AWS_ENDPOINT_URL (or
// AWS_ENDPOINT_URL_S3), AWS_REGION (or AWS_DEFAULT_REGION),
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.
type Config struct {
	// Endpoint is the server's URL, http:// or https:// (default
	// https://s3.amazonaws.com).
	Endpoint string
	Region   string
	// AccessKey and SecretKey sign requests; both empty means anonymous
	// requests unless the environment has keys.
	AccessKey, SecretKey, SessionToken string
	// Retention, when non-zero, puts every object written under S3 Object
	// Lock retention for that long (the bucket must have been created with
	// Object Lock), in Mode: "GOVERNANCE" (default) or "COMPLIANCE".
	Retention time.Duration
	Mode      string
	// Transport carries the requests (default: a clone of
	// http.DefaultTransport).
	Transport http.RoundTripper
}

// fromEnv returns c with its zero fields taken from the environment.
func (c Config) fromEnv() Config {
	first := func(v string, names ...string) string {
		for _, n := range names {
			if v != "" {
				break
			}
			v = os.Getenv(n)
		}
		return v
	}
	c.Endpoint = first(c.Endpoint, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
	c.Region = first(c.Region, "AWS_REGION", "AWS_DEFAULT_REGION")
	if c.AccessKey == "" && c.SecretKey == "" {
		c.AccessKey, c.SecretKey = os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
		c.SessionToken = first(c.SessionToken, "AWS_SESSION_TOKEN")
	}
	if c.Endpoint == "" {
		c.Endpoint = "https://s3.amazonaws.com"
	}
	return c
}

// Store is a replica's place in object storage: a bucket and a prefix
// under which the log's objects are (docs/SPEC.md, "Replica").
type Store struct {
	client *minio.Client
	bucket string
	prefix string // "" or ending in "/"
	url    string
	lock   minio.RetentionMode
	retain time.Duration
}

// ErrExists is returned by a write of an object that is already there:
// objects of a replica are written once.
var ErrExists = errors.New("replica: object already exists")

// Dial returns the Store of the replica at rawURL (s3://bucket/prefix,
// the prefix optional) reached as cfg says. It sends no request.
func Dial(rawURL string, cfg Config) (*Store, error) {
	if !IsURL(rawURL) {
		return nil, fmt.Errorf("replica: %q is not an s3://bucket/prefix URL", rawURL)
	}
	bucket, prefix, _ := strings.Cut(strings.TrimPrefix(rawURL, Scheme), "/")
	prefix = strings.Trim(prefix, "/")
	if bucket == "" {
		return nil, fmt.Errorf("replica: %q names no bucket", rawURL)
	}
	if strings.Contains(prefix, "//") {
		return nil, fmt.Errorf("replica: %q: the prefix has an empty element", rawURL)
	}
	cfg = cfg.fromEnv()
	ep, err := url.Parse(cfg.Endpoint)
	if err != nil || (ep.Scheme != "http" && ep.Scheme != "https") || ep.Host == "" {
		return nil, fmt.Errorf("replica: endpoint %q: want http://host[:port] or https://host[:port]", cfg.Endpoint)
	}
	var creds *credentials.Credentials
	if cfg.AccessKey != "" || cfg.SecretKey != "" {
		creds = credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken)
	} else {
		creds = credentials.New(&credentials.Static{}) // anonymous
	}
	tr := cfg.Transport
	if tr == nil {
		tr = http.DefaultTransport.(*http.Transport).Clone()
	}
	client, err := minio.New(ep.Host, &minio.Options{
		Creds: creds, Secure: ep.Scheme == "https", Region: cfg.Region, Transport: tr,
		BucketLookup: minio.BucketLookupPath,
		// The replicator retries on its own schedule, and a reader's
		// failure is reported at once: one retry covers a dropped
		// keep-alive connection.
		MaxRetries: 2,
	})
	if err != nil {
		return nil, fmt.Errorf("replica: %w", err)
	}
	s := &Store{client: client, bucket: bucket, url: Scheme + bucket, retain: cfg.Retention}
	if prefix != "" {
		s.prefix = prefix + "/"
		s.url += "/" + prefix
	}
	if cfg.Retention > 0 {
		switch strings.ToUpper(cfg.Mode) {
		case "", "GOVERNANCE":
			s.lock = minio.Governance
		case "COMPLIANCE":
			s.lock = minio.Compliance
		default:
			return nil, fmt.Errorf("replica: retention mode %q: want GOVERNANCE or COMPLIANCE", cfg.Mode)
		}
	}
	return s, nil
}

// URL returns the replica's URL, s3://bucket/prefix.
func (s *Store) URL() string { return s.url }

// put writes the object at key (relative to the prefix) once: with
// If-None-Match: *, so that an object already there is never replaced
// (ErrExists), and under the store's retention if it has one.
func (s *Store) put(ctx context.Context, key string, data []byte) error {
	opts := minio.PutObjectOptions{ContentType: "application/octet-stream", DisableMultipart: true, SendContentMd5: true}
	opts.SetMatchETagExcept("*")
	if s.retain > 0 {
		opts.Mode, opts.RetainUntilDate = s.lock, time.Now().Add(s.retain)
	}
	_, err := s.client.PutObject(ctx, s.bucket, s.prefix+key, bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		if r := minio.ToErrorResponse(err); r.StatusCode == http.StatusPreconditionFailed || r.Code == minio.PreconditionFailed {
			return fmt.Errorf("%w: %s/%s", ErrExists, s.url, key)
		}
		return fmt.Errorf("replica: writing %s/%s: %w", s.url, key, err)
	}
	return nil
}

// get reads the object at key, of at most limit bytes.
func (s *Store) get(ctx context.Context, key string, limit int64) ([]byte, error) {
	o, err := s.client.GetObject(ctx, s.bucket, s.prefix+key, minio.GetObjectOptions{})
	if err != nil {
		return nil, s.readErr(key, err)
	}
	defer o.Close()
	b, err := io.ReadAll(io.LimitReader(o, limit+1))
	if err != nil {
		return nil, s.readErr(key, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("replica: %s/%s is over %d bytes", s.url, key, limit)
	}
	return b, nil
}

// read reads the object key, which the listing says holds len(into)
// bytes, into into: an object of another size is an error.
func (s *Store) read(ctx context.Context, key string, into []byte) error {
	o, err := s.client.GetObject(ctx, s.bucket, s.prefix+key, minio.GetObjectOptions{})
	if err != nil {
		return s.readErr(key, err)
	}
	defer o.Close()
	n, err := io.ReadFull(o, into)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return fmt.Errorf("replica: %s/%s holds %d bytes, its listing %d", s.url, key, n, len(into))
	}
	if err != nil {
		return s.readErr(key, err)
	}
	if m, _ := o.Read(make([]byte, 1)); m > 0 {
		return fmt.Errorf("replica: %s/%s holds more than the %d bytes of its listing", s.url, key, len(into))
	}
	return nil
}

func (s *Store) readErr(key string, err error) error {
	if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
		err = fmt.Errorf("%w (%v)", os.ErrNotExist, err)
	}
	return fmt.Errorf("replica: reading %s/%s: %w", s.url, key, err)
}

// object is one object of a replica as a listing gives it.
type object struct {
	key  string // relative to the prefix
	size int64
}

// list returns every object under the prefix, in key order.
func (s *Store) list(ctx context.Context) ([]object, error) {
	var objs []object
	for o := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix, Recursive: true}) {
		if o.Err != nil {
			return nil, fmt.Errorf("replica: listing %s: %w", s.url, o.Err)
		}
		objs = append(objs, object{key: strings.TrimPrefix(o.Key, s.prefix), size: o.Size})
	}
	return objs, nil
}
