# pkft: one-command build and test. Every target fetches and builds what it needs first, so any of
# them works as the first command on a fresh machine.

GO       ?= go
MVN      ?= mvn
PYTHON   ?= python3
RUNNER_JAR := compat/java/target/pkft-runner.jar
# TIMED PHASE CMD...: runs CMD and prints "phase PHASE: 12.3s (CPU 20.1s)" (scripts/timed.sh).
TIMED    := ./scripts/timed.sh

# make test requires the native engine, the Java runner (with its full-text indexer), pypaimon
# and the paimon-rust runner.
PKFT_REQUIRE_NATIVE        ?= 1
PKFT_REQUIRE_JAVA          ?= 1
PKFT_REQUIRE_JAVA_FULLTEXT ?= 1
PKFT_REQUIRE_PYPAIMON      ?= 1
PKFT_REQUIRE_RUST          ?= 1
PKFT_REQUIRE_GO            ?= 1
PKFT_REQUIRE_S3            ?= 1
# The engine make native unpacks, named for every test and runner the targets start: without it,
# each table handle that needs the engine would first ask the Python on PATH for the
# paimon_ftindex package (pkft's lookup order, docs/cli.md, "The full-text engine"), a process per handle.
PAIMON_FTINDEX_LIB_PATH ?= $(CURDIR)/.cache/native/libpaimon_ftindex_ffi.so
export PAIMON_FTINDEX_LIB_PATH
export PKFT_REQUIRE_NATIVE PKFT_REQUIRE_JAVA PKFT_REQUIRE_JAVA_FULLTEXT PKFT_REQUIRE_PYPAIMON PKFT_REQUIRE_RUST PKFT_REQUIRE_GO PKFT_REQUIRE_S3

.PHONY: all test compat native runner golden bench clean check-fmt vet gotest

all: test

native:
	@$(TIMED) native ./scripts/fetch-native.sh

# pypaimon (Apache Paimon's pure-Python implementation) in .cache/pypaimon-venv, for the pypaimon
# conformance cases and golden tables.
.PHONY: pypaimon-env
pypaimon-env:
	@$(TIMED) pypaimon-env ./scripts/pypaimon-env.sh

# pypaimon 2.1.0 with the paimon-ftindex wheel make native fetched, in .cache/pypaimon21-venv: the
# consumer runner compat/python/pypaimon21_runner.py (compat/PROTOCOL.md) reads and searches
# every full-text table of the corpus.
.PHONY: pypaimon21-env
pypaimon21-env: native
	@$(TIMED) pypaimon21-env ./scripts/pypaimon21-env.sh

# The paimon-rust 0.4.0 consumer and writer runner (compat/rust, compat/PROTOCOL.md), built with Cargo into
# RUST_TARGET_DIR, outside the clone, so that a fresh clone or a second CI run on the same machine
# compiles nothing (scripts/rust-runner.sh); the program is copied to .cache/rust-runner/.
# rust-runner-test runs the runner's own unit tests on the same (release) dependencies.
RUST_TARGET_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/pkft/rust-target
RUST_JOBS       ?= 2
export RUST_TARGET_DIR RUST_JOBS
.PHONY: rust-runner rust-runner-test
rust-runner:
	@$(TIMED) rust-runner ./scripts/rust-runner.sh

rust-runner-test: rust-runner
	@$(TIMED) rust-runner-test ./scripts/rust-runner.sh test

# pkft's own runner of the protocol (compat/go, compat/PROTOCOL.md), implementation go of the
# conformance matrix, built with the Go toolchain into .cache/go-runner/ (the build cache makes a
# second build nearly free). The conformance targets build it first.
GO_RUNNER := .cache/go-runner/pkft-runner
.PHONY: go-runner
go-runner:
	@mkdir -p $(dir $(GO_RUNNER))
	@$(TIMED) go-runner $(GO) build -o $(GO_RUNNER) ./compat/go

# The Java runner's full-text indexer: standin (default) builds the runner's stand-ins for the six
# classes of Paimon's paimon-full-text module over the engine's C ABI library (a JNI shim compiled
# with the machine's cc); paimon builds against the real org.apache.paimon:paimon-full-text:2.0.0
# instead (Maven profile paimon-full-text; needs a registry that serves it). See docs/java-runner.md.
JAVA_FULLTEXT ?= standin
ifeq ($(JAVA_FULLTEXT),paimon)
RUNNER_PROFILE := -Ppaimon-full-text
else ifeq ($(JAVA_FULLTEXT),standin)
RUNNER_PROFILE :=
else
$(error JAVA_FULLTEXT must be standin or paimon, not $(JAVA_FULLTEXT))
endif
RUNNER_VARIANT := compat/java/target/full-text-variant

# The Paimon build the Java runner compiles and runs against: empty takes the pom's paimon.version
# (2.0.0) and paimon.bundle (paimon-flink-2.0). make compat PAIMON_VERSION=2.1-SNAPSHOT runs the
# whole matrix, golden tables included, against another release or a local build installed in
# Maven's local repository (docs/conformance.md, "Running the matrix against another Paimon build").
PAIMON_VERSION ?=
PAIMON_BUNDLE  ?=
export PAIMON_VERSION PAIMON_BUNDLE
RUNNER_MVN_ARGS := $(if $(PAIMON_VERSION),-Dpaimon.version=$(PAIMON_VERSION)) $(if $(PAIMON_BUNDLE),-Dpaimon.bundle=$(PAIMON_BUNDLE))
RUNNER_STAMP := $(JAVA_FULLTEXT) $(PAIMON_BUNDLE) $(PAIMON_VERSION)

# runner rebuilds the jar when the sources, the full-text variant or the Paimon build changed. A
# change of variant or Paimon build removes the whole build output first: classes and resources
# compiled for the other variant (the stand-ins' service entry among them) would otherwise be packed
# again. scripts/check-runner-jar.sh then checks the jar holds the stand-ins exactly when the
# variant is standin.
runner:
	@[ "$$(cat $(RUNNER_VARIANT) 2>/dev/null)" = "$(strip $(RUNNER_STAMP))" ] || rm -rf compat/java/target
	@$(MAKE) --no-print-directory $(RUNNER_JAR)
	@./scripts/check-runner-jar.sh $(JAVA_FULLTEXT) $(RUNNER_JAR)

$(RUNNER_JAR): compat/java/pom.xml $(shell find compat/java/src -type f 2>/dev/null)
	@MVN="$(MVN)" $(TIMED) runner-paimon-jar ./scripts/fetch-paimon-jar.sh
	@cd compat/java && ../../$(TIMED) runner $(MVN) -q -B package -DskipTests $(RUNNER_PROFILE) $(RUNNER_MVN_ARGS)
	echo "$(strip $(RUNNER_STAMP))" > $(RUNNER_VARIANT)

# runner-test: the runner's own unit tests (the stand-ins against the behaviours of Paimon's
# full-text module tests), with Maven.
.PHONY: runner-test
runner-test: native runner
	cd compat/java && $(MVN) -q -B test $(RUNNER_PROFILE) $(RUNNER_MVN_ARGS)

# The S3 server of the s3/* cases and internal/fileio/s3io's tests: SeaweedFS's weed, built from its Go
# module at the version pinned in scripts/seaweedfs.version by scripts/seaweedfs-build.sh and
# cached outside the clone (${XDG_CACHE_HOME:-$$HOME/.cache}/pkft/seaweedfs/<version>/weed), so a
# machine builds it once (about 8 minutes on 2 cores) and later runs build nothing. The suites
# start and stop their own server on loopback ports; s3-up starts one that stays up (for trying
# pkft on s3:// paths by hand: it prints the AWS_* variables that reach it) and s3-down stops it.
.PHONY: seaweedfs s3-up s3-down
seaweedfs:
	@$(TIMED) seaweedfs ./scripts/seaweedfs-build.sh >/dev/null

s3-up: seaweedfs
	@$(GO) run ./internal/testing/s3server/s3up -dir .cache/s3

s3-down:
	@./scripts/s3-down.sh .cache/s3

check-fmt:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './.cache/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@cargo fmt --check --manifest-path compat/rust/Cargo.toml || { echo "cargo fmt needed in compat/rust"; exit 1; }

vet:
	$(GO) vet ./...

# actionlint checks the CI workflows under .github/workflows. The Go toolchain fetches and builds
# the pinned version on first use (no binary download). shellcheck and pyflakes are turned off so
# the verdict does not depend on what else the machine has installed.
ACTIONLINT_VERSION ?= v1.7.12
.PHONY: actionlint
actionlint:
	$(GO) run github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION) -shellcheck= -pyflakes= .github/workflows/*.yml

# test-prepare fetches and builds what make test's phases use in parallel (-j4), as make compat does:
# on a fresh machine the downloads (Maven's, pip's, Cargo's, the Go modules of SeaweedFS) overlap
# the compiles of the Rust runner and SeaweedFS instead of waiting for them.
.PHONY: test-prepare
test-prepare:
	@$(MAKE) -j4 --no-print-directory native runner seaweedfs rust-runner go-runner pypaimon-env pypaimon21-env

# The conformance package runs in its own step, with the matrix printed. The packages whose tests
# take longest (tools/pkft's wait on the processes they start) are listed first, so that they run
# beside the others instead of after them.
UNIT_FIRST := ./tools/pkft .
gotest: native runner seaweedfs
	$(TIMED) unit-tests $(GO) test -race -count=1 -timeout 20m -skip '^TestCrashPoints(S3|S3Siblings)?$$' $$($(GO) list $(UNIT_FIRST) ./... | awk '!seen[$$0]++' | grep -v '/compat/runner$$')

# faults: the crash-point suites (internal/testing/crashpoint): every table-writing operation is failed or
# crashed at a sample of its file operations (every one with FULL=1) and what it leaves is checked;
# prints the crash-point table, on the local file system (TestCrashPoints) and on SeaweedFS through
# the S3 FileIO (TestCrashPointsS3). The Java side is the conformance case faults/<operation>.
# FULL=1 sweeps every point of every operation, locally and on S3, one after the other: well over
# 90 minutes on 2 cores (the local sweep alone took 75), so it gets 6 hours.
FULL ?=
FAULTS_TIMEOUT ?= $(if $(FULL),360m,90m)
.PHONY: faults faults-run
faults: native seaweedfs
	@$(TIMED) faults $(MAKE) --no-print-directory faults-run

faults-run:
	@out=$$(mktemp); \
	PKFT_FAULTS_FULL=$(FULL) $(GO) test -count=1 -timeout $(FAULTS_TIMEOUT) -run '^TestCrashPoints(S3|S3Siblings)?$$' -v ./internal/tableops/ >$$out 2>&1; rc=$$?; \
	if [ $$rc -ne 0 ]; then grep -v 'leaves orphans' $$out | tail -200; fi; \
	sed -n 's/.*faults| //p' $$out; rm -f $$out; exit $$rc

# test: what the phases need, fetched and built at once (test-prepare), then formatting, vet,
# actionlint on the CI workflows, the Java runner's and the Rust runner's unit tests, the Go tests
# (under the race detector but for compat/runner's and the crash points'), the crash-point suites,
# the short fuzzing, then the conformance suite.
test: test-prepare check-fmt vet actionlint runner-test rust-runner-test gotest faults fuzz-short
	$(MAKE) --no-print-directory conformance

# compat: the conformance suite on its own, with every runner required. Its preparations run in
# parallel (-j4): compiling the suite, which takes most of a first run, overlaps the downloads of
# the engine wheel, the Paimon jar, Maven's dependencies, pypaimon and the Rust runner's build.
# IMPL=<name> runs only the cases that run implementation <name>, and with ROLES=<role,...> only
# those that take it in one of the roles (consumer, writer, compactor, maintainer; the suite reads
# them as PKFT_CASE_IMPL and PKFT_CASE_ROLES): make compat IMPL=go ROLES=writer,compactor.
compat:
	$(MAKE) -j4 --no-print-directory conformance

.PHONY: conformance conformance-compile
# The conformance suite runs without -race: it drives the JVM and the engine, where the race
# detector finds nothing and costs a slow first compile; the Go code it calls runs under -race in
# gotest.
conformance: native pypaimon-env pypaimon21-env rust-runner go-runner runner seaweedfs conformance-compile
	$(if $(IMPL),PKFT_CASE_IMPL='$(IMPL)') $(if $(ROLES),PKFT_CASE_ROLES='$(ROLES)') \
		$(TIMED) conformance $(GO) test -count=1 -timeout 45m -v ./compat/runner/ -args -report compat/report

# mutations: the gate's teeth (compat/mutations/README.md, docs/conformance.md). Builds the Go runner
# with -tags pkftmutation into .cache/go-runner-mutation/, then runs the writer, compactor and
# maintainer cases once per mutation (PKFT_MUTATION) through it and prints, per mutation, the first
# case that failed, then "mutations: N caught of M"; fails when one survives. MUTATIONS="a b"
# runs only those.
.PHONY: mutations
mutations: native pypaimon-env pypaimon21-env rust-runner runner seaweedfs
	@$(TIMED) mutations ./scripts/mutations.sh

# mutations-auto: the automatic mutation run beside the catalogue (docs/conformance.md, "The gate's
# teeth"): gremlins (built by the Go toolchain at a pinned version) lists the operator and boundary
# mutants of the maintainer's packages; each runs against its package's unit tests and, when it
# survives them, through the Go runner rebuilt from it against the families make mutations runs.
# Prints "mutants: N killed of M (score S%)", writes the survivors with their diffs to
# compat/report/mutations-auto.md. Hours over every package: not part of make test. A sample:
# MUTATIONS_AUTO_PACKAGES=internal/javaio MUTATIONS_AUTO_MAX=5.
.PHONY: mutations-auto
mutations-auto: native pypaimon-env pypaimon21-env rust-runner runner seaweedfs
	@$(TIMED) mutations-auto ./scripts/mutations-auto.sh

# conformance-compile compiles the suite (into the build cache) without running it.
conformance-compile:
	@$(TIMED) conformance-compile $(GO) test -c -o /dev/null ./compat/runner/

# golden: regenerates testdata/tables/pypaimon and compat/golden/pypaimon through pypaimon,
# testdata/tables/java and compat/golden/java through the Java runner, then testdata/tables/go
# (tables pkft wrote, maintained and compacted; two start as copies of Java golden tables) and
# compat/golden/go (the Java runner's dump, rows and search answers of each).
golden: native pypaimon-env runner
	$(GO) test -count=1 ./compat/runner/ -run TestGolden -args -update

# corpus-bundle: the released fixture bundle of the golden corpus (compat/bundle): every golden table
# (Java-, Go- and pypaimon-written, as checked in; make golden regenerates them) with a
# language-neutral manifest (compat/bundle/manifest.schema.json) in
# compat/report/pkft-corpus-$(CORPUS_VERSION).tar.gz. TestBundle checks it opens with tar, validates
# and reads every table it lists.
CORPUS_VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
.PHONY: corpus-bundle
corpus-bundle:
	@$(TIMED) corpus-bundle $(GO) run ./compat/bundle/cmd/corpus-bundle -version $(CORPUS_VERSION) -out compat/report

# bench: pkft against Java Paimon and against the engine's own limit, on the same generated tables
# in one run (compat/bench, TestBench): one level's archive build at 100k and 1M rows with the
# default and ngram analyzers (the engine fed from memory, Go from the Parquet files, Java's
# PkFullTextIndexFile in the runner, timed inside the JVM after warm-up), the bucket restore
# decision (state + plan) at 1,000 / 10,000 / 100,000 files, maintenance of a 16-bucket table with
# 1 and 2 workers against Java's, the memory of the 1M-row build, and the write (with its
# compaction at commit) and full compaction of a 64-bucket, 1M-row table, Go's writer in a child
# process and Java's in a fresh JVM on the same rows, with each writer's peak RSS; small batches
# (0.2% and 2% of the rows: inserts, updates, deletes) committed one after another into a 1M-row,
# 16-bucket table Go and Java filled in turn (levels 1-5), Go and Java side by side; and the
# sidecar's (pkft maintain --watch) idle cost per poll and catch-up after a Java commit on tables
# of 100 and 1,000 buckets. Prints the ratio table and writes compat/report/bench.json and
# compat/report/bench.png (10-15 minutes on 2 cores, more with the batches and sidecar sections).
# PKFT_BENCH_SECTIONS=build,state,maintain,search,shards,batches,sidecar,write,backfill runs only
# the sections named (backfill: compact --strategy uncovered against a forced full rewrite on a
# table 10% uncovered); PKFT_BENCH_BATCH_*, PKFT_BENCH_SIDECAR_* and PKFT_BENCH_BACKFILL_ROWS set
# those sections' sizes.
# BENCH_CONTENDED=1 (the default; 0 turns it off) measures the search, write and compaction
# sections a second time with busy processes on every core (one each, PKFT_BENCH_BUSY overrides
# the count; children of the bench at its priority, killed when it ends), Go and Java in
# alternating rounds, and prints those figures beside the quiet ones.
# PKFT_BENCH_QUICK=1: small sizes, a few minutes, written to compat/report/bench-quick.*; not part
# of make test, which it would lengthen by more than 30 s. bench-go runs every Go micro-benchmark
# once.
.PHONY: bench-go
BENCH_CONTENDED ?= 1
bench: native runner
	PKFT_BENCH=1 PKFT_BENCH_CONTENDED=$(BENCH_CONTENDED) $(GO) test -count=1 -timeout 90m -run '^TestBench$$' -v ./compat/bench/
	$(GO) test -count=1 -run '^$$' -bench '^BenchmarkWriteRecord$$' -benchtime 20x . | grep -E '^Benchmark'

bench-go: native
	$(GO) test -run '^$$' -bench . -benchtime 1x ./...

# heap-test: builds an archive from a generated data file of over 1 GiB (PKFT_HEAP_FILE_MB, default
# 1100) and checks the Go heap stays under 64 MiB. Not part of make test: it writes that file.
.PHONY: heap-test
heap-test: native
	PKFT_HEAP_TEST=1 $(GO) test -count=1 -timeout 60m -run '^TestBuildHeapFromLargeDataFile$$' -v ./internal/pkfulltext/

# perf-maintain: generates a table of PKFT_BENCH_ROWS rows (default 1,000,000) at one compacted
# level and checks `pkft maintain` on it prints progress and takes at most 1.2x the archive build of
# the same rows (about 15 s: each is timed twice, alternating). Not part of make test: its timing depends on the machine's load.
.PHONY: perf-maintain
perf-maintain: native
	PKFT_PERF_TEST=1 $(GO) test -count=1 -timeout 30m -run '^TestMaintainPerformance$$' -v ./tools/pkft/

# Fuzz targets: every `func FuzzX` in a test file under internal/ and internal/. Their checked-in seed
# corpora (testdata/fuzz/FuzzX/) run as regression tests in every go test; fuzz-short (part of make
# test) fuzzes each target for FUZZ_SHORT_TIME, fuzz for FUZZTIME. A crasher is written to the
# target's testdata/fuzz/FuzzX/ by go test: check it in as a regression test.
FUZZTIME ?= 60s
FUZZ_SHORT_TIME ?= 3s
FUZZ_TARGETS = for dir in $$(grep -rl --include='*_test.go' '^func Fuzz' internal | xargs -n1 dirname | sort -u); do \
	  for f in $$(grep -h '^func Fuzz' $$dir/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do
.PHONY: fuzz fuzz-short
fuzz:
	@$(FUZZ_TARGETS) \
	    echo "fuzz ./$$dir $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) ./$$dir || exit 1; \
	  done; \
	done

# Go 1.26's fuzz coordinator can fail a target with a bare "context deadline exceeded" when
# -fuzztime ends while a worker is busy (go.dev/issue/75804, fixed in Go 1.27): such a failure that
# wrote no failing input is reported and ignored; any failing input written fails the target.
.PHONY: fuzz-short fuzz-short-run
fuzz-short:
	@$(TIMED) fuzz-short $(MAKE) --no-print-directory fuzz-short-run

fuzz-short-run:
	@$(FUZZ_TARGETS) \
	    before=$$(ls $$dir/testdata/fuzz/$$f 2>/dev/null | wc -l); \
	    if out=$$($(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZ_SHORT_TIME) ./$$dir 2>&1); then \
	      echo "fuzz-short ./$$dir $$f: ok"; \
	    elif [ "$$(ls $$dir/testdata/fuzz/$$f 2>/dev/null | wc -l)" = "$$before" ] && echo "$$out" | grep -q 'context deadline exceeded'; then \
	      echo "fuzz-short ./$$dir $$f: ok (fuzz coordinator deadline race ignored, no failing input)"; \
	    else \
	      echo "$$out"; echo "fuzz-short ./$$dir $$f: FAIL"; exit 1; \
	    fi; \
	  done; \
	done

# Container mode (docs/java-runner.md, "Container mode"): the Java runner in a container started through
# testcontainers-go. docker-up installs Docker (Debian's docker.io, with debootstrap and
# docker-compose) when missing and starts the daemon when none answers; docker-images builds the
# base image locally (no image registry needed: a Debian root filesystem with a Java 17 runtime, made
# by debootstrap and imported; kept once built) and the runner image on it.
# Any pkft-base:TAG is made so (a fresh tag makes it again, as on a machine with empty caches);
# PKFT_BASE_IMAGE=eclipse-temurin:17-jre uses the usual Temurin image instead, where a registry
# serves it.
PKFT_BASE_IMAGE   ?= pkft-base:local
PKFT_RUNNER_IMAGE ?= pkft-runner:latest
.PHONY: docker-up docker-images compat-docker
docker-up:
	@$(TIMED) docker-up ./scripts/docker-up.sh

docker-images: docker-up native runner
ifneq ($(filter pkft-base:%,$(PKFT_BASE_IMAGE)),)
	@PKFT_BASE_IMAGE=$(PKFT_BASE_IMAGE) $(TIMED) docker-base-image ./scripts/docker-base-image.sh
endif
	@mkdir -p compat/java/target/engine
	@cp .cache/native/libpaimon_ftindex_ffi.so compat/java/target/engine/
	@old=$$(docker image inspect -f '{{.Id}}' $(PKFT_RUNNER_IMAGE) 2>/dev/null || true); \
	jar=$$(sha256sum compat/java/target/pkft-runner.jar | cut -d' ' -f1) && \
	$(TIMED) docker-runner-image docker build -q --build-arg BASE_IMAGE=$(PKFT_BASE_IMAGE) \
		--label io.github.paimon-pkft.runner.jar-sha256=$$jar -t $(PKFT_RUNNER_IMAGE) compat/java && \
	new=$$(docker image inspect -f '{{.Id}}' $(PKFT_RUNNER_IMAGE)) && \
	if [ -n "$$old" ] && [ "$$old" != "$$new" ]; then docker rmi $$old >/dev/null 2>&1 || true; fi

# pkft-image: the pkft image of deploy/Dockerfile (the command and the engine library), which the
# Kubernetes manifests in deploy/k8s run, built on the same locally made base image; the build
# context is staged in .cache/pkft-image. TestPkftImage (compat-docker) runs it.
PKFT_IMAGE ?= pkft:latest
.PHONY: pkft-image
pkft-image: docker-up native
ifneq ($(filter pkft-base:%,$(PKFT_BASE_IMAGE)),)
	@PKFT_BASE_IMAGE=$(PKFT_BASE_IMAGE) $(TIMED) docker-base-image ./scripts/docker-base-image.sh
endif
	@rm -rf .cache/pkft-image && mkdir -p .cache/pkft-image
	@$(TIMED) pkft-image-binary $(GO) build -trimpath -o .cache/pkft-image/pkft ./tools/pkft
	@cp deploy/Dockerfile .cache/native/libpaimon_ftindex_ffi.so .cache/pkft-image/
	@old=$$(docker image inspect -f '{{.Id}}' $(PKFT_IMAGE) 2>/dev/null || true); \
	$(TIMED) pkft-image docker build -q --build-arg BASE_IMAGE=$(PKFT_BASE_IMAGE) -t $(PKFT_IMAGE) .cache/pkft-image && \
	new=$$(docker image inspect -f '{{.Id}}' $(PKFT_IMAGE)) && \
	if [ -n "$$old" ] && [ "$$old" != "$$new" ]; then docker rmi $$old >/dev/null 2>&1 || true; fi

# conformance-image: the conformance image (compat/image/Dockerfile, docs/adding-an-implementation.md,
# "The conformance image"), one image any implementation's CI runs the matrix from: the compiled
# suite, the Java runner on Paimon 2.0.0, the pypaimon 2.0/2.1 environments, the paimon-rust and Go
# runners, the golden corpus and SeaweedFS, built on the same locally made base image and labelled
# with the protocol version and CORPUS_VERSION (scripts/conformance-image.sh stages the context in
# .cache/conformance-image). Its entry point, compat/image/pkft-conformance, runs the matrix for the
# implementation mounted into it. compat-image runs TestConformanceImage: the image's outcomes for
# the Go runner's consumer and writer cases equal those of the same selection outside it.
CONFORMANCE_IMAGE ?= pkft-conformance:latest
.PHONY: conformance-image compat-image
conformance-image: docker-up native runner go-runner rust-runner pypaimon-env pypaimon21-env seaweedfs
ifneq ($(filter pkft-base:%,$(PKFT_BASE_IMAGE)),)
	@PKFT_BASE_IMAGE=$(PKFT_BASE_IMAGE) $(TIMED) docker-base-image ./scripts/docker-base-image.sh
endif
	@GO=$(GO) PKFT_BASE_IMAGE=$(PKFT_BASE_IMAGE) CONFORMANCE_IMAGE=$(CONFORMANCE_IMAGE) CORPUS_VERSION=$(CORPUS_VERSION) \
	  $(TIMED) conformance-image ./scripts/conformance-image.sh

compat-image: conformance-image
	PKFT_CONFORMANCE_IMAGE_TEST=1 PKFT_REQUIRE_DOCKER=1 CONFORMANCE_IMAGE=$(CONFORMANCE_IMAGE) \
	  $(TIMED) conformance-image-test $(GO) test -count=1 -timeout 30m -v -run '^TestConformanceImage$$' ./compat/runner/

# compat-docker: the conformance suite with the Java runner in its container (the same cases as
# make compat; its report goes to compat/report-docker), with the container mode's own tests
# (removal on every exit path, docker-compose.yml) required to run. Then its results.json must
# match make compat's (compat/report, when there is one: in CI, make test's run just before) case
# for case, outcome for outcome.
compat-docker: docker-images pkft-image pypaimon-env pypaimon21-env rust-runner go-runner seaweedfs
	PKFT_RUNNER=docker PKFT_REQUIRE_DOCKER=1 PKFT_RUNNER_IMAGE=$(PKFT_RUNNER_IMAGE) PKFT_IMAGE=$(PKFT_IMAGE) \
	  TESTCONTAINERS_RYUK_DISABLED=true \
	  $(TIMED) conformance-docker $(GO) test -count=1 -timeout 45m -v ./compat/runner/ -args -report compat/report-docker
	@if [ -f compat/report/results.json ]; then \
	  $(PYTHON) scripts/compare-results.py compat/report/results.json compat/report-docker/results.json; \
	else echo "compat-docker: no compat/report/results.json to compare with (make compat writes it)"; fi

# compat-docker-ci: what CI runs in container mode on every run (the full container pass,
# make compat-docker, repeats every case make test's conformance phase already ran locally, and is
# kept as a target). Every test of compat/runner but the conformance suite, the container mode's
# own tests among them (a ping, removal on every exit path, docker-compose.yml, the pkft image),
# and the case families in CONTAINER_CASES, which use the
# containerized runner in each way the suite does: Java writes, compacts and maintains beside Go
# and reads and searches Go's archives (scenario, bucket, sidecar), index-file and source-meta
# bytes, bucket states, and faults (about 90 cases, 9 minutes on 2 cores). The search family is
# left out: its cases search tables the table family's maintain cases leave. Its results.json
# must equal make compat's on the cases it ran (scripts/compare-results.py --subset).
CONTAINER_CASES ?= scenario|bucket|index-file|source-meta|faults|state|sidecar
.PHONY: compat-docker-ci
compat-docker-ci: docker-images pkft-image pypaimon-env pypaimon21-env rust-runner go-runner seaweedfs
	PKFT_RUNNER=docker PKFT_REQUIRE_DOCKER=1 PKFT_RUNNER_IMAGE=$(PKFT_RUNNER_IMAGE) PKFT_IMAGE=$(PKFT_IMAGE) \
	  TESTCONTAINERS_RYUK_DISABLED=true \
	  $(TIMED) conformance-docker-ci $(GO) test -count=1 -timeout 45m -v \
	  -run '^TestConformance$$/^($(CONTAINER_CASES))$$' ./compat/runner/ -args -report compat/report-docker
	PKFT_RUNNER=docker PKFT_REQUIRE_DOCKER=1 PKFT_RUNNER_IMAGE=$(PKFT_RUNNER_IMAGE) PKFT_IMAGE=$(PKFT_IMAGE) \
	  TESTCONTAINERS_RYUK_DISABLED=true \
	  $(TIMED) container-tests $(GO) test -count=1 -timeout 20m -v \
	  -skip '^TestConformance$$' ./compat/runner/
	@if [ -f compat/report/results.json ]; then \
	  $(PYTHON) scripts/compare-results.py --subset compat/report/results.json compat/report-docker/results.json; \
	else echo "compat-docker-ci: no compat/report/results.json to compare with (make compat writes it)"; fi

clean:
	rm -rf .cache compat/java/target compat/java/lib compat/report compat/report-docker
