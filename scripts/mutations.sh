#!/usr/bin/env bash
# mutations.sh: the gate's teeth (compat/mutations/README.md, docs/conformance.md). Builds the Go
# runner (compat/go) with the build tag pkftmutation, then, for each mutation of the catalogue,
# runs the writer, compactor and maintainer cases of the conformance matrix through that runner
# with PKFT_MUTATION set to the mutation, and prints the first case that failed (the mutation is
# caught) or "SURVIVED". Ends with "mutations: N caught of M" and exits non-zero when one survived.
#
# Environment:
#   MUTATIONS           space-separated names to run (default: every name of the catalogue)
#   MUTATION_RUNNER_DIR where the mutation runner is built (default .cache/go-runner-mutation)
#   MUTATION_RUN        the -run selection (default: the families that run Go through its runner)
#   MUTATION_LOGS       directory for each run's test output (default compat/report/mutations)
#   MUTATION_TIMEOUT    go test -timeout of one run (default 30m)
#   MUTATION_BASELINE   0 skips the first run without a mutation (which must pass)
# The runs are kept short: -failfast (the first failure is all a run must find), the table
# differential at PKFT_TABLE_DIFF_N scripts (default 5), the decision differentials at their fixed
# seeds (PKFT_DIFFERENTIAL_SEED=1 turns the rotating share off).
set -uo pipefail
cd "$(dirname "$0")/.."

go=${GO:-go}
catalogue=compat/mutations/README.md
runner_dir=${MUTATION_RUNNER_DIR:-.cache/go-runner-mutation}
logs=${MUTATION_LOGS:-compat/report/mutations}
run=${MUTATION_RUN:-'^TestConformance$/^(scenario|source-meta|index-file|maintainer|table|producer)$'}
timeout=${MUTATION_TIMEOUT:-30m}

# The catalogue's names: the first column of the table between its markers.
all=$(sed -n '/<!-- mutations: begin -->/,/<!-- mutations: end -->/p' "$catalogue" |
	sed -n 's/^| `\([a-z0-9-]*\)` |.*/\1/p')
names=${MUTATIONS:-$all}
for n in $names; do
	if ! grep -qx -- "$n" <<<"$all"; then
		echo "mutations: $n is not in $catalogue" >&2
		exit 2
	fi
done

mkdir -p "$runner_dir" "$logs" || exit 2
logs=$(cd "$logs" && pwd)
runner="$(cd "$runner_dir" && pwd)/pkft-runner"
echo "mutations: building $runner with -tags pkftmutation"
"$go" build -tags pkftmutation -o "$runner" ./compat/go || exit 2
"$go" test -c -o "$logs/runner.test" ./compat/runner || exit 2

export PKFT_IMPL_GO="$runner serve"
export PKFT_TABLE_DIFF_N=${PKFT_TABLE_DIFF_N:-5}
export PKFT_DIFFERENTIAL_SEED=${PKFT_DIFFERENTIAL_SEED:-1}
export PKFT_REQUIRE_GO=1

# runs the selection with the mutation $1 (empty: none) into the log $2.
run_cases() {
	(cd compat/runner && PKFT_MUTATION="$1" "$logs/runner.test" -test.count=1 -test.failfast \
		-test.timeout "$timeout" -test.v -test.run "$run") >"$2" 2>&1
}

# A catch means something only if the same cases pass without a mutation.
if [ "${MUTATION_BASELINE:-1}" != 0 ]; then
	if ! run_cases "" "$logs/baseline.log"; then
		echo "mutations: the cases fail without a mutation (see $logs/baseline.log); fix that first" >&2
		exit 2
	fi
	echo "mutations: baseline passed (no mutation)"
fi

# first_failed prints the first failing case of a log: the first "--- FAIL" name (go test prints
# a parent before its subtests, in the order they ran) that is no other failure's parent.
first_failed() {
	sed -n -E 's/^[[:space:]]*--- FAIL: ([^ ]*).*/\1/p' "$1" |
		awk '{ n[NR] = $0 } END { for (i = 1; i <= NR; i++) { leaf = 1; for (j = 1; j <= NR; j++) if (index(n[j], n[i] "/") == 1) leaf = 0; if (leaf) { print n[i]; exit } } }'
}

caught=0 total=0 survivors=""
for n in $names; do
	total=$((total + 1))
	log="$logs/$n.log"
	start=$(date +%s)
	run_cases "$n" "$log"
	rc=$?
	secs=$(($(date +%s) - start))
	first=$(first_failed "$log")
	if [ -n "$first" ]; then
		caught=$((caught + 1))
		printf 'mutation %-28s caught by %s (%ds)\n' "$n" "$first" "$secs"
	elif [ "$rc" -ne 0 ]; then
		# No case failed, yet the run did (a timeout, a crash of the test binary): not a catch.
		survivors="$survivors $n"
		printf 'mutation %-28s UNDECIDED: no case failed but the run did (exit %d, %ds; see %s)\n' "$n" "$rc" "$secs" "$log"
	else
		survivors="$survivors $n"
		printf 'mutation %-28s SURVIVED (%ds)\n' "$n" "$secs"
	fi
done
echo "mutations: $caught caught of $total"
if [ -n "$survivors" ]; then
	echo "mutations: surviving:$survivors"
	exit 1
fi
