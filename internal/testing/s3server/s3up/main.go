// Command s3up starts a SeaweedFS S3 server that outlives it, for make s3-up: the weed binary
// make s3-up built, on free loopback ports, with its data under -dir. It writes -dir/pid (the
// server's process group) and -dir/env (the AWS_* variables and pkft --fs-option flags that reach
// it) and prints the env file. make s3-down stops the server and removes -dir.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/paimon-pkft/pkft/internal/testing/s3server"
)

func main() {
	dir := flag.String("dir", ".cache/s3", "the server's directory (data, log, pid, env)")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "s3-up:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "pid")); err == nil {
		return fmt.Errorf("a server is already running from %s (make s3-down stops it)", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	bin, err := s3server.Binary()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return err
	}
	srv, err := s3server.Start(context.Background(), bin, abs)
	if err != nil {
		return err
	}
	env := fmt.Sprintf("AWS_ENDPOINT_URL=%s\nAWS_ACCESS_KEY_ID=%s\nAWS_SECRET_ACCESS_KEY=%s\nAWS_REGION=us-east-1\n",
		srv.Endpoint, s3server.AccessKey, s3server.SecretKey)
	if err := os.WriteFile(filepath.Join(abs, "env"), []byte(env), 0o644); err != nil {
		srv.Stop()
		return err
	}
	if err := os.WriteFile(filepath.Join(abs, "pid"), []byte(strconv.Itoa(srv.Pid())+"\n"), 0o644); err != nil {
		srv.Stop()
		return err
	}
	fmt.Print(env)
	return nil
}
