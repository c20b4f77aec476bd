// Package k8s holds the Kubernetes manifests of pkft (an Indexed Job running sharded
// maintenance, a Deployment running the watch sidecar); its test validates them against the
// Kubernetes API types and against pkft's own command line.
package k8s

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// image is the image the manifests run: the tag make pkft-image builds.
const image = "pkft:latest"

// decode reads path strictly into obj: a field the API type does not have is an error, as the
// API server's strict field validation makes it.
func decode(t *testing.T, path string, obj any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// pkftHelp returns `pkft CMD --help` of the pkft command in this module.
func pkftHelp(t *testing.T, cmd string) string {
	t.Helper()
	out, err := exec.Command("go", "run", "../../tools/pkft", cmd, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("pkft %s --help: %v\n%s", cmd, err, out)
	}
	return string(out)
}

// checkContainer checks what both manifests' containers share: the image, every $(VAR) of the
// args defined in the container's environment (Kubernetes leaves an undefined one as it is),
// every flag known to `pkft maintain`, a writable /tmp for the engine's build directories, and
// the S3 credentials from a Secret.
func checkContainer(t *testing.T, c corev1.Container, help string) {
	t.Helper()
	if c.Image != image {
		t.Errorf("image %q, want %q (make pkft-image)", c.Image, image)
	}
	if len(c.Args) < 2 || c.Args[0] != "maintain" || !strings.HasPrefix(c.Args[1], "s3://") {
		t.Errorf("args %q, want maintain s3://...", c.Args)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	ref := regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
	for _, a := range c.Args {
		for _, m := range ref.FindAllStringSubmatch(a, -1) {
			if _, ok := env[m[1]]; !ok {
				t.Errorf("arg %q refers to $(%s), which the container does not define", a, m[1])
			}
		}
		if strings.HasPrefix(a, "--") && !strings.Contains(help, "      "+a+" ") {
			t.Errorf("flag %s is not a flag of pkft maintain", a)
		}
	}
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		if e, ok := env[k]; !ok || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			t.Errorf("%s: want it from a Secret, got %+v", k, e)
		}
	}
	if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == "/tmp" }) {
		t.Error("no volume on /tmp: the engine builds in TMPDIR and the root file system is read-only")
	}
}

// TestMaintainJob: an Indexed Job whose completion index is the --shard index, with as many
// shards as completions, each pod restarting nothing itself.
func TestMaintainJob(t *testing.T) {
	var job batchv1.Job
	decode(t, "maintain-job.yaml", &job)
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Fatalf("%s %s", job.APIVersion, job.Kind)
	}
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || s.Parallelism == nil {
		t.Fatalf("want an Indexed Job with completions and parallelism, got %+v", s)
	}
	if s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q, want Never (a failed shard is retried per index by the Job)", s.Template.Spec.RestartPolicy)
	}
	cs := s.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("%d containers", len(cs))
	}
	c := cs[0]
	checkContainer(t, c, pkftHelp(t, "maintain"))
	i := slices.Index(c.Args, "--shard")
	if i < 0 || i+1 >= len(c.Args) {
		t.Fatalf("args %q: no --shard", c.Args)
	}
	index, count, ok := strings.Cut(c.Args[i+1], "/")
	n, err := strconv.Atoi(count)
	if !ok || err != nil || index != "$(SHARD_INDEX)" || int32(n) != *s.Completions || *s.Parallelism != *s.Completions {
		t.Errorf("--shard %s with %d completions and parallelism %d: want $(SHARD_INDEX)/completions", c.Args[i+1], *s.Completions, *s.Parallelism)
	}
	for _, e := range c.Env {
		if e.Name == "SHARD_INDEX" {
			if e.ValueFrom == nil || e.ValueFrom.FieldRef == nil ||
				e.ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
				t.Errorf("SHARD_INDEX from %+v, want the completion index annotation", e.ValueFrom)
			}
		}
	}
}

// TestWatchDeployment: one replica of pkft maintain --watch, listening where its probes and its
// port point, ready only while /healthz says so.
func TestWatchDeployment(t *testing.T) {
	var d appsv1.Deployment
	decode(t, "watch-deployment.yaml", &d)
	if d.APIVersion != "apps/v1" || d.Kind != "Deployment" {
		t.Fatalf("%s %s", d.APIVersion, d.Kind)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("want 1 replica, recreated (never two watchers of one table): %+v", d.Spec)
	}
	for k, v := range d.Spec.Selector.MatchLabels {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("selector %s=%s does not select the pod template", k, v)
		}
	}
	cs := d.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("%d containers", len(cs))
	}
	c := cs[0]
	checkContainer(t, c, pkftHelp(t, "maintain"))
	if !slices.Contains(c.Args, "--watch") {
		t.Fatalf("args %q: no --watch", c.Args)
	}
	i := slices.Index(c.Args, "--listen")
	if i < 0 || i+1 >= len(c.Args) {
		t.Fatalf("args %q: no --listen (the default loopback address is unreachable from the kubelet)", c.Args)
	}
	_, port, _ := strings.Cut(c.Args[i+1], ":")
	if len(c.Ports) != 1 || strconv.Itoa(int(c.Ports[0].ContainerPort)) != port {
		t.Fatalf("--listen %s, container ports %+v", c.Args[i+1], c.Ports)
	}
	for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Port.String() != c.Ports[0].Name {
			t.Errorf("%s probe %+v, want an HTTP GET on port %s", name, p, c.Ports[0].Name)
		}
	}
	if c.ReadinessProbe.HTTPGet.Path != "/healthz" || c.LivenessProbe.HTTPGet.Path != "/metrics" {
		t.Errorf("readiness on %s, liveness on %s: want /healthz (failing while it backs off) and /metrics (served while it runs)",
			c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path)
	}
}
