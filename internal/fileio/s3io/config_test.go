package s3io

import (
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadConfigEnvironmentAndOptions(t *testing.T) {
	c, err := LoadConfig(map[string]string{"s3.path.style.access": "false", "fs.s3a.multipart.size": "16M"}, env(map[string]string{
		"AWS_ACCESS_KEY_ID": "ak", "AWS_SECRET_ACCESS_KEY": "sk", "AWS_DEFAULT_REGION": "eu-west-1",
		"AWS_ENDPOINT_URL": "http://127.0.0.1:9000",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.AccessKey != "ak" || c.SecretKey != "sk" || c.Region != "eu-west-1" || c.Endpoint != "http://127.0.0.1:9000" {
		t.Fatalf("environment not applied: %+v", c)
	}
	if c.PathStyle {
		t.Fatalf("an explicit path.style.access=false must win over the IP-endpoint default")
	}
	if c.PartSize != 16<<20 || !c.ConditionalWrites {
		t.Fatalf("part size %d, conditional writes %v", c.PartSize, c.ConditionalWrites)
	}
	c, err = LoadConfig(map[string]string{"s3a.endpoint": "http://localhost:1", "s3.access-key": "a", "s3.secret-key": "b", "s3.region": "r"},
		env(map[string]string{"AWS_ACCESS_KEY_ID": "env", "AWS_SECRET_ACCESS_KEY": "env", "AWS_REGION": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.AccessKey != "a" || c.SecretKey != "b" || c.Region != "r" || !c.PathStyle {
		t.Fatalf("options must win over the environment and localhost be path-style: %+v", c)
	}
}

func TestLoadConfigRefusesByName(t *testing.T) {
	for opts, want := range map[string]string{
		"s3.bogus":             `S3 option "s3.bogus" is not supported`,
		"fs.s3a.fast.upload":   `S3 option "fs.s3a.fast.upload" is not supported`,
		"warehouse":            `option "warehouse" is not an S3 option`,
		"s3.multipart.size":    "below S3's minimum part size",
		"s3.path.style.access": "not a boolean",
		"s3.endpoint":          "is not an http(s) URL",
		"s3.access-key":        "needs a secret key",
	} {
		val := map[string]string{"s3.multipart.size": "1M", "s3.path.style.access": "maybe", "s3.endpoint": "ftp://x"}[opts]
		if val == "" {
			val = "x"
		}
		_, err := LoadConfig(map[string]string{opts: val}, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%s: got %v, want an error containing %q", opts, val, err, want)
		}
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]location{
		"s3://b/a//c/":  {bucket: "b", key: "a/c"},
		"s3a://b":       {bucket: "b"},
		"S3://b/x.json": {bucket: "b", key: "x.json"},
	} {
		got, err := parse(in)
		if err != nil || got != want {
			t.Errorf("parse(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"/tmp/x", "s3:///k", "gs://b/k"} {
		if _, err := parse(bad); err == nil {
			t.Errorf("parse(%q) accepted", bad)
		}
	}
}
