package s3io

import (
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// The option prefixes Paimon's S3FileIO accepts (it maps each to Hadoop's fs.s3a.): an option is
// s3.<name>, s3a.<name> or fs.s3a.<name> for the same name.
var optionPrefixes = []string{"fs.s3a.", "s3a.", "s3."}

// DefaultPartSize is the size of a multipart upload's parts, and the size from which a file is
// uploaded in parts rather than by one PUT.
const DefaultPartSize = 8 << 20

// MinPartSize is the smallest part S3 accepts (every part but the last).
const MinPartSize = 5 << 20

// Config is how the S3 FileIO reaches its server.
type Config struct {
	// Endpoint is the server's base URL (http://127.0.0.1:8333); empty means AWS's regional
	// endpoint.
	Endpoint string
	// Region signs the requests; default us-east-1.
	Region string
	// AccessKey, SecretKey and SessionToken are static credentials; without an access key the
	// requests are sent unsigned (anonymous access).
	AccessKey, SecretKey, SessionToken string
	// PathStyle addresses buckets as http://host/bucket/key instead of http://bucket.host/key.
	PathStyle bool
	// PartSize is the part size of multipart uploads (at least MinPartSize).
	PartSize int64
	// ConditionalWrites sends If-None-Match: * with every write that must not replace an
	// existing object, so the server refuses the second of two racing writers. Servers that do
	// not implement the header need it off; then the existence check before the write is the
	// only guard (the one Paimon's Java FileIO has).
	ConditionalWrites bool
	// ListPageSize is the number of keys a listing asks for per page (0: the server's default,
	// 1000 on S3).
	ListPageSize int32
	// ReadObserver, when set, is told the bytes every GET received, with the object's path as the
	// caller named it (tests count what a search reads of one archive).
	ReadObserver func(path string, n int64)
}

// option names (after the prefix), each with the Config field it sets.
var optionNames = map[string]func(c *Config, v string) error{
	"endpoint":          func(c *Config, v string) error { c.Endpoint = v; return nil },
	"endpoint.region":   func(c *Config, v string) error { c.Region = v; return nil },
	"region":            func(c *Config, v string) error { c.Region = v; return nil },
	"access-key":        func(c *Config, v string) error { c.AccessKey = v; return nil },
	"access.key":        func(c *Config, v string) error { c.AccessKey = v; return nil },
	"secret-key":        func(c *Config, v string) error { c.SecretKey = v; return nil },
	"secret.key":        func(c *Config, v string) error { c.SecretKey = v; return nil },
	"session.token":     func(c *Config, v string) error { c.SessionToken = v; return nil },
	"path-style-access": setBool(func(c *Config, b bool) { c.PathStyle = b }),
	"path.style.access": setBool(func(c *Config, b bool) { c.PathStyle = b }),
	"multipart.size": func(c *Config, v string) error {
		n, err := parseSize(v)
		if err != nil {
			return err
		}
		if n < MinPartSize {
			return fmt.Errorf("%d is below S3's minimum part size %d", n, MinPartSize)
		}
		c.PartSize = n
		return nil
	},
	"conditional-writes": setBool(func(c *Config, b bool) { c.ConditionalWrites = b }),
}

func setBool(set func(*Config, bool)) func(*Config, string) error {
	return func(c *Config, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not a boolean", v)
		}
		set(c, b)
		return nil
	}
}

// parseSize reads a byte count, optionally suffixed K, M or G (powers of 1024), as Hadoop's
// fs.s3a.multipart.size is written.
func parseSize(v string) (int64, error) {
	s := strings.TrimSpace(strings.ToUpper(v))
	mult := int64(1)
	if s != "" {
		switch s[len(s)-1] {
		case 'K':
			mult, s = 1<<10, s[:len(s)-1]
		case 'M':
			mult, s = 1<<20, s[:len(s)-1]
		case 'G':
			mult, s = 1<<30, s[:len(s)-1]
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a positive size", v)
	}
	return n * mult, nil
}

// IsOption reports whether key is an option of the S3 FileIO's namespace (s3., s3a. or fs.s3a.).
func IsOption(key string) bool {
	for _, p := range optionPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// LoadConfig builds the configuration from the environment (getenv, normally os.Getenv) and then
// the options, which win. The environment variables are the AWS SDKs' usual ones:
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION (else
// AWS_DEFAULT_REGION), AWS_ENDPOINT_URL_S3 (else AWS_ENDPOINT_URL). An option outside the
// namespace, or inside it but unknown, is refused by name; nothing is silently ignored.
func LoadConfig(opts map[string]string, getenv func(string) string) (Config, error) {
	c := Config{PartSize: DefaultPartSize, ConditionalWrites: true, Region: "us-east-1"}
	if getenv != nil {
		c.AccessKey = getenv("AWS_ACCESS_KEY_ID")
		c.SecretKey = getenv("AWS_SECRET_ACCESS_KEY")
		c.SessionToken = getenv("AWS_SESSION_TOKEN")
		if r := firstNonEmpty(getenv("AWS_REGION"), getenv("AWS_DEFAULT_REGION")); r != "" {
			c.Region = r
		}
		c.Endpoint = firstNonEmpty(getenv("AWS_ENDPOINT_URL_S3"), getenv("AWS_ENDPOINT_URL"))
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pathStyleSet := false
	for _, k := range keys {
		name, ok := "", false
		for _, p := range optionPrefixes {
			if strings.HasPrefix(k, p) {
				name, ok = k[len(p):], true
				break
			}
		}
		if !ok {
			return Config{}, fmt.Errorf("option %q is not an S3 option (s3.*, s3a.* or fs.s3a.*)", k)
		}
		set, known := optionNames[name]
		if !known {
			return Config{}, fmt.Errorf("S3 option %q is not supported by pkft", k)
		}
		if err := set(&c, opts[k]); err != nil {
			return Config{}, fmt.Errorf("S3 option %q: %w", k, err)
		}
		if name == "path-style-access" || name == "path.style.access" {
			pathStyleSet = true
		}
	}
	if c.Endpoint != "" {
		u, err := url.Parse(c.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Config{}, fmt.Errorf("S3 endpoint %q is not an http(s) URL", c.Endpoint)
		}
		// A bucket cannot be a subdomain of an IP address or of localhost: such endpoints are
		// addressed path-style unless an option says otherwise.
		if !pathStyleSet {
			host := u.Hostname()
			if host == "localhost" || net.ParseIP(host) != nil {
				c.PathStyle = true
			}
		}
	}
	if (c.AccessKey == "") != (c.SecretKey == "") {
		return Config{}, fmt.Errorf("S3 credentials: an access key needs a secret key and the other way round")
	}
	return c, nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
