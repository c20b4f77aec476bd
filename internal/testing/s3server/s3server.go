// Package s3server starts a real S3 server for tests: SeaweedFS's `weed server -s3`, built by
// scripts/seaweedfs-build.sh (make s3-up) from its Go module at the version pinned in
// scripts/seaweedfs.version, on loopback ports with a temporary data directory; or, when
// PKFT_S3PROXY_JAR names an S3Proxy jar, S3Proxy on its filesystem backend (for measuring it:
// docs/performance.md "A cold CI run" records which S3 requests each version answers as the
// tests need). Either is a separate process speaking the S3 protocol, not an in-process fake.
package s3server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// BinaryEnv names a weed binary to use instead of the cached build.
const BinaryEnv = "PKFT_WEED"

// S3ProxyJarEnv names an S3Proxy jar (its jar-with-dependencies classifier) to start instead of
// weed: `java -jar JAR` with the jclouds backend PKFT_S3PROXY_PROVIDER (default filesystem) under
// the server's directory. S3Proxy needs no build, but 2.6.0 ignores If-None-Match on writes and
// 4.1.0 on copies: docs/performance.md "A cold CI run".
const S3ProxyJarEnv = "PKFT_S3PROXY_JAR"

// RequireEnv is the variable that makes a missing weed binary a test failure (make test sets it).
const RequireEnv = "PKFT_REQUIRE_S3"

// Credentials of the server's single identity.
const (
	AccessKey = "pkft-access"
	SecretKey = "pkft-secret"
)

// logName is the server's log file in its directory.
const logName = "server.log"

// stopGrace is how long Stop waits after SIGTERM before SIGKILL: weed was measured not to stop
// within 7 s of SIGTERM (nor within 4 s with -volume.preStopSeconds=0), and its data directory is
// thrown away anyway.
const stopGrace = 2 * time.Second

// Server is a running weed server.
type Server struct {
	// Endpoint is the S3 gateway's base URL (http://127.0.0.1:port).
	Endpoint string
	// Kind names the server: "SeaweedFS" or "S3Proxy".
	Kind   string
	dir    string
	cmd    *exec.Cmd
	exited chan struct{}
	log    *os.File
}

// repoRoot finds the module root (the directory holding scripts/seaweedfs.version) from the
// working directory up.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "scripts", "seaweedfs.version")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("scripts/seaweedfs.version not found above the working directory")
		}
		dir = parent
	}
}

// Binary returns the server to start: $PKFT_S3PROXY_JAR, else the weed binary $PKFT_WEED, else the build scripts/seaweedfs-build.sh caches
// under ${XDG_CACHE_HOME:-$HOME/.cache}/pkft/seaweedfs/<version>/weed.
func Binary() (string, error) {
	if j := os.Getenv(S3ProxyJarEnv); j != "" {
		if _, err := os.Stat(j); err != nil {
			return "", fmt.Errorf("%s=%s: %w", S3ProxyJarEnv, j, err)
		}
		return j, nil
	}
	if b := os.Getenv(BinaryEnv); b != "" {
		if _, err := os.Stat(b); err != nil {
			return "", fmt.Errorf("%s=%s: %w", BinaryEnv, b, err)
		}
		return b, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	v, err := os.ReadFile(filepath.Join(root, "scripts", "seaweedfs.version"))
	if err != nil {
		return "", err
	}
	cache := os.Getenv("PKFT_SEAWEEDFS_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", err
			}
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "pkft", "seaweedfs")
	}
	bin := filepath.Join(cache, strings.TrimSpace(string(v)), "weed")
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("no SeaweedFS binary at %s (make s3-up builds it): %w", bin, err)
	}
	return bin, nil
}

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		p := l.Addr().(*net.TCPAddr).Port
		// weed's gRPC ports are its HTTP ports + 10000: keep both below 65536.
		if p+10000 > 65535 {
			continue
		}
		ports = append(ports, p)
	}
	return ports, nil
}

// Start runs `weed server` with its master, volume server, filer and S3 gateway on free
// loopback ports and a fresh data directory under dir, and waits until the S3 gateway answers;
// given a .jar, it starts S3Proxy from it instead.
func Start(ctx context.Context, bin, dir string) (*Server, error) {
	if strings.HasSuffix(bin, ".jar") {
		return startS3Proxy(ctx, bin, dir)
	}
	ports, err := freePorts(4)
	if err != nil {
		return nil, fmt.Errorf("s3 server: free ports: %w", err)
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	cfg := filepath.Join(dir, "s3.json")
	identity := fmt.Sprintf(`{"identities":[{"name":"pkft","credentials":[{"accessKey":%q,"secretKey":%q}],"actions":["Admin","Read","Write","List","Tagging"]}]}`, AccessKey, SecretKey)
	if err := os.WriteFile(cfg, []byte(identity), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, logName))
	if err != nil {
		return nil, err
	}
	args := []string{
		"server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir=" + data,
		"-master.port=" + strconv.Itoa(ports[0]), "-volume.port=" + strconv.Itoa(ports[1]),
		"-filer", "-filer.port=" + strconv.Itoa(ports[2]),
		"-s3", "-s3.port=" + strconv.Itoa(ports[3]), "-s3.config=" + cfg,
		"-volume.max=0", "-master.volumeSizeLimitMB=64",
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("s3 server: start %s: %w", bin, err)
	}
	s := &Server{Endpoint: "http://127.0.0.1:" + strconv.Itoa(ports[3]), Kind: "SeaweedFS", dir: dir, cmd: cmd, exited: make(chan struct{}), log: logf}
	go func() { cmd.Wait(); close(s.exited) }()
	if err := s.waitReady(ctx, 90*time.Second); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls until the S3 gateway answers a bucket-creation request: that needs the master,
// a volume server and the filer to be up too.
func (s *Server) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	cli := &http.Client{Timeout: 2 * time.Second}
	for {
		select {
		case <-s.exited:
			return fmt.Errorf("s3 server exited early; log:\n%s", s.LogTail())
		default:
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.Endpoint+"/", nil)
		if resp, err := cli.Do(req); err == nil {
			resp.Body.Close()
			// An unsigned request is refused with 403 once the gateway runs.
			if resp.StatusCode < 500 {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("s3 server did not answer within %s; log:\n%s", limit, s.LogTail())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// LogTail returns the end of the server's log.
func (s *Server) LogTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, logName))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// Stop sends SIGTERM to the server's process group, then SIGKILL after a grace period, and waits
// for it to exit.
func (s *Server) Stop() {
	if s.cmd.Process == nil {
		return
	}
	pgid := -s.cmd.Process.Pid
	syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(stopGrace):
		syscall.Kill(pgid, syscall.SIGKILL)
		<-s.exited
	}
	s.log.Close()
}

// TB is the part of testing.TB ForTest uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
	TempDir() string
	Cleanup(func())
}

// ForTest starts a server for a test and stops it when the test ends. Without a weed binary the
// test is skipped, or failed when PKFT_REQUIRE_S3=1.
func ForTest(t TB) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%v (%s=1 makes this a failure)", err, RequireEnv)
		}
		t.Skipf("skipped: %v (set %s=1 to make this a failure)", err, RequireEnv)
	}
	s, err := Start(context.Background(), bin, t.TempDir())
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Pid is the server's process id (also its process group id).
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// startS3Proxy runs S3Proxy from its jar with the filesystem backend under dir on a free
// loopback port, with the single identity, and waits until it answers.
func startS3Proxy(ctx context.Context, jar, dir string) (*Server, error) {
	ports, err := freePorts(1)
	if err != nil {
		return nil, fmt.Errorf("s3 server: free ports: %w", err)
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	endpoint := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	conf := strings.Join([]string{
		"s3proxy.endpoint=" + endpoint,
		"s3proxy.authorization=aws-v2-or-v4",
		"s3proxy.identity=" + AccessKey,
		"s3proxy.credential=" + SecretKey,
		"jclouds.provider=" + s3proxyProvider(),
		"jclouds.filesystem.basedir=" + data,
		"jclouds.identity=" + AccessKey,
		"jclouds.credential=" + SecretKey,
	}, "\n") + "\n"
	cfg := filepath.Join(dir, "s3proxy.conf")
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, logName))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("java", "-jar", jar, "--properties", cfg)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("s3 server: start S3Proxy %s: %w", jar, err)
	}
	s := &Server{Endpoint: endpoint, Kind: "S3Proxy", dir: dir, cmd: cmd, exited: make(chan struct{}), log: logf}
	go func() { cmd.Wait(); close(s.exited) }()
	if err := s.waitReady(ctx, 90*time.Second); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// s3proxyProvider is S3Proxy's jclouds backend: PKFT_S3PROXY_PROVIDER, else filesystem.
func s3proxyProvider() string {
	if p := os.Getenv("PKFT_S3PROXY_PROVIDER"); p != "" {
		return p
	}
	return "filesystem"
}
