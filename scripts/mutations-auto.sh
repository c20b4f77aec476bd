#!/usr/bin/env bash
# mutations-auto.sh: the automatic mutation run beside the hand-written catalogue (make
# mutations-auto; docs/conformance.md, "The gate's teeth"). gremlins lists the operator and boundary
# mutants of the maintainer's packages; each mutant is applied to a copy of the tree
# (compat/mutations/auto), run against its package's unit tests, and, when it survives them, the Go
# runner is rebuilt from the mutated copy and the conformance families that exercise the
# maintainer run through it with -failfast (as scripts/mutations.sh runs them). Prints one line a
# mutant, then "mutants: N killed of M (score S%)", and writes the survivors with their diffs to
# the report. Takes hours over every package; not part of make test.
#
# Environment:
#   MUTATIONS_AUTO_PACKAGES   space-separated package directories (default: packages below)
#   MUTATIONS_AUTO_MATCH      run only the mutants whose "file:line:column TYPE" matches this
#                             regular expression (awk's, extended), e.g. one survivor again
#   MUTATIONS_AUTO_EXCLUDE    leave out the mutants whose name matches this (e.g. those triaged
#                             equivalent, which would run every family to the end)
#   MUTATIONS_AUTO_MAX        run only the first N mutants, in package then file order (a sample)
#   MUTATIONS_AUTO_DIR        work directory (default .cache/mutations-auto: the tree copy, logs)
#   MUTATIONS_AUTO_REPORT     the report (default compat/report/mutations-auto.md)
#   MUTATIONS_AUTO_BASELINE   0 skips the conformance run without a mutation (which must pass)
#   MUTATIONS_AUTO_CONFORMANCE  0 runs the unit tests alone: a mutant they do not kill is counted
#                             lived ("unit tests only") without the conformance run, a quick
#                             first pass that lists what the unit tests miss (a lower bound)
#   MUTATIONS_AUTO_EQUIVALENT run: a survivor of the unit tests that the triage calls equivalent
#                             runs the conformance families too (by default it does not: they
#                             would run to the end, minutes a mutant, for a mutant not counted)
#   MUTATIONS_AUTO_MODULE_TESTS  the module's other test packages (directories, default the
#                             root package, pkft's API) whose unit tests run for a mutant its
#                             own package's tests leave alive, those that ran the mutated code
#                             ("" runs none)
#   MUTATIONS_AUTO_SELECT     0 runs every unit test of a mutant's package for it; by default
#                             only the tests whose cover profile ran the mutated code run (none
#                             when no test ran it; all when it is outside every function)
#   MUTATIONS_AUTO_JOBS       how many mutants run at once (default 1), each worker in its own
#                             copy of the tree; the conformance runs of survivors take turns
#   MUTATIONS_AUTO_RESUME     1 keeps the results of an earlier run in the same work directory
#                             (an interrupted one) when it ran over the same inputs (the tree's
#                             files and the settings above that decide a result) and
#                             runs only the mutants it has no result of (nor an undecided one)
#   MUTATION_RUN, MUTATION_TIMEOUT   the -run selection and go test -timeout of a conformance run
set -uo pipefail
cd "$(dirname "$0")/.."

# The maintainer's packages (each with its subpackages, as gremlins walks them).
packages="internal/pkfulltext internal/pkindex internal/search internal/restore internal/tableops internal/paths internal/javaio"
# The conformance families a surviving mutant runs: those of scripts/mutations.sh.
families='^TestConformance$/^(scenario|source-meta|index-file|maintainer|table|producer)$'
# The module's other test packages whose tests run for a mutant its own package's tests leave
# alive (those that ran the mutated code): pkft's API tests exercise the maintainer's packages
# through the operations a user calls.
module_tests="."
# The unit tests a mutant does not run: the crash-point suites, which make faults runs (make
# gotest skips them too).
unit_skip='^TestCrashPoints(S3|S3Siblings)?$'
# gremlins, pinned, and its mutators: its defaults (arithmetic base, conditionals boundary and
# negation, increment/decrement, invert negatives) and the swap of && and ||.
gremlins_module=github.com/go-gremlins/gremlins/cmd/gremlins
gremlins_version=v0.6.0
gremlins_flags="--invert-logical"
triage=compat/mutations/auto-triage.md

go=${GO:-go}
packages=${MUTATIONS_AUTO_PACKAGES:-$packages}
module_tests=${MUTATIONS_AUTO_MODULE_TESTS-$module_tests}
max=${MUTATIONS_AUTO_MAX:-0}
jobs_n=${MUTATIONS_AUTO_JOBS:-1}
case $jobs_n in '' | *[!0-9]* | 0) echo "mutants: MUTATIONS_AUTO_JOBS must be a positive number, not '$jobs_n'" >&2; exit 2 ;; esac
if [ "$jobs_n" -gt 1 ] && ! command -v flock >/dev/null; then
	echo "mutants: MUTATIONS_AUTO_JOBS=$jobs_n needs flock (util-linux), which is not installed" >&2
	exit 2
fi
work=${MUTATIONS_AUTO_DIR:-.cache/mutations-auto}
report=${MUTATIONS_AUTO_REPORT:-compat/report/mutations-auto.md}
run=${MUTATION_RUN:-$families}
timeout=${MUTATION_TIMEOUT:-30m}

mkdir -p "$work" "$(dirname "$report")" || exit 2
work=$(cd "$work" && pwd)
repo=$(pwd)
tree=$work/tree logs=$work/logs diffs=$work/diffs results=$work/results.tsv
bin=.cache/gremlins-$gremlins_version

# Tools: gremlins built by the Go toolchain at its pinned version, the helper, the test binary
# of the conformance suite (built from the unmutated tree: only the runner under test is wrong).
if [ ! -x "$bin/gremlins" ]; then
	echo "mutants: building gremlins $gremlins_version"
	GOBIN="$repo/$bin" "$go" install "$gremlins_module@$gremlins_version" || exit 2
fi
gremlins=$repo/$bin/gremlins
"$go" build -o "$work/auto" ./compat/mutations/auto || exit 2
rm -rf "$logs" && mkdir -p "$logs" || exit 2
conformance_stage=${MUTATIONS_AUTO_CONFORMANCE:-1}
if [ "$conformance_stage" != 0 ]; then
	"$go" test -c -o "$work/runner.test" ./compat/runner || exit 2
fi

# The copy of the tree mutants are applied to: the files git tracks or would (not .cache, not
# reports), as they are in the working tree.
rm -rf "$tree" && mkdir -p "$tree" || exit 2
git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	tar --null -T - -cf - | tar -xf - -C "$tree" || exit 2

export PKFT_TABLE_DIFF_N=${PKFT_TABLE_DIFF_N:-5}
export PKFT_DIFFERENTIAL_SEED=${PKFT_DIFFERENTIAL_SEED:-1}
export PKFT_REQUIRE_GO=1

# The run's inputs: the tree's files (docs/ too: pkft's tests run its examples) and the settings
# that decide a mutant's result. A resumed run keeps an earlier run's results only when they match.
fingerprint=$(
	{
		(cd "$tree" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) || exit 2
		printf '%s\n' "select=${MUTATIONS_AUTO_SELECT:-1}" "module=$module_tests" \
			"conformance=${MUTATIONS_AUTO_CONFORMANCE:-1}" "equivalent=${MUTATIONS_AUTO_EQUIVALENT:-}" \
			"run=$run" "timeout=$timeout" "n=$PKFT_TABLE_DIFF_N" "seed=$PKFT_DIFFERENTIAL_SEED"
	} | sha256sum | cut -d' ' -f1
) || exit 2
runner=$work/pkft-runner

# conformance runs the families through the runner built from the copy, into the log $1.
# Workers take turns (one conformance run at a time: each starts JVMs and an S3 server).
conformance() {
	(cd "$tree" && "$go" build -o "$runner" ./compat/go) >"$1" 2>&1 || return 3
	(
		[ "$jobs_n" -eq 1 ] || flock 9
		cd compat/runner && PKFT_IMPL_GO="$runner serve" "$work/runner.test" -test.count=1 -test.failfast \
			-test.timeout "$timeout" -test.v -test.run "$run"
	) >>"$1" 2>&1 9>"$work/conformance.lock"
}

# first_failed: the first failing case of a log (as scripts/mutations.sh finds it).
first_failed() {
	sed -n -E 's/^[[:space:]]*--- FAIL: ([^ ]*).*/\1/p' "$1" |
		awk '{ n[NR] = $0 } END { for (i = 1; i <= NR; i++) { leaf = 1; for (j = 1; j <= NR; j++) if (index(n[j], n[i] "/") == 1) leaf = 0; if (leaf) { print n[i]; exit } } }'
}

# cover_profiles records which unit tests of the package in directory $1 (relative to the tree)
# run which code: its test binary built with coverage of the package, run once a test, each run
# writing its profile to $work/cover/<dir>/<test>.cov. A mutant's unit run then runs only the
# tests that ran the mutated code (auto covering): a test that never runs it cannot tell the
# mutant apart. No profiles (no test files, or a failure here) leave the package's every test to
# run for each of its mutants.
select_tests=${MUTATIONS_AUTO_SELECT:-1}
module=$(cd "$tree" && "$go" list -m) || exit 2
cover_profiles() {
	local ipath
	ipath=$(cd "$tree" && "$go" list "./$1") || return 1
	profile_tests "$1" "$ipath" "$work/cover/${1//\//_}" || { rm -f "$work/cover/${1//\//_}"/*.cov; return 1; }
}

# profile_tests builds the tests of the package in directory $1 with coverage of the packages $2
# (a -coverpkg list) and runs them one at a time, each writing its profile to $3/<test>.cov;
# it fails when a test does, and leaves the tests' time in profiled_seconds.
profile_tests() {
	local d=$1 out=$3 t start
	profiled_seconds=0
	rm -rf "$out" && mkdir -p "$out" || return 1
	(cd "$tree" && "$go" test -c -vet=off -cover -covermode=set -coverpkg="$2" -o "$out/t.test" "./$d") || return 1
	[ -x "$out/t.test" ] || return 0 # no test files
	start=$(date +%s)
	for t in $(cd "$tree/$d" && "$out/t.test" -test.list '.*' | grep -E '^(Test|Fuzz|Example)' | grep -vE "$unit_skip"); do
		t0=$(date +%s%N)
		if ! (cd "$tree/$d" && "$out/t.test" -test.run "^$t\$" -test.count=1 -test.coverprofile "$out/$t.cov") >"$out/$t.log" 2>&1; then
			echo "mutants: $d's $t fails without a mutation (see $out/$t.log)" >&2
			return 1
		fi
		printf '%s\t%d\n' "$t" $((($(date +%s%N) - t0) / 1000000)) >>"$out/durations.tsv"
	done
	profiled_seconds=$(($(date +%s) - start))
}

# run_timeout prints the go test -timeout, in seconds, of a run of the tests the -run pattern $2
# selects (as auto covering prints it) from the profiled tests in $1: five times their profiled
# time, at least a minute, at most $3 (the timeout of all of them). A mutant that makes a test
# hang then costs what its tests would, not what the whole package's would.
run_timeout() {
	local ms t
	if [ ! -f "$1/durations.tsv" ]; then
		echo "$3"
		return
	fi
	ms=$(sed -e 's/^\^(//' -e 's/)\$$//' <<<"$2" | tr '|' '\n' | sed 's/\\//g' |
		awk -F '\t' 'NR == FNR { want[$1] = 1; next } $1 in want { s += $2 } END { print s + 0 }' - "$1/durations.tsv")
	t=$((5 * ms / 1000))
	[ "$t" -ge 60 ] || t=60
	[ "$t" -le "$3" ] || t=$3
	echo "$t"
}

# unit_killed records a failed unit run, logged in $1, as the mutant's result; $2 (optional)
# names the test package when it is not the mutant's own.
unit_killed() {
	result=killed-unit
	grep -q '^panic: test timed out' "$1" && result=killed-unit-timeout
	detail=$(sed -n -E 's/^--- FAIL: ([^ ]*).*/\1/p' "$1" | head -n 1)
	detail="${2:+$2 }$detail"
}

# The mutants, and each package's unit tests without a mutation: they must pass, and their time
# sets the unit tests' timeout of a mutant (five times it, at least a minute).
: >"$work/mutants.tsv"
declare -A unit_timeout
for p in $packages; do
	if [ ! -d "$tree/$p" ]; then
		echo "mutants: $p is not a directory of the module" >&2
		exit 2
	fi
	start=$(date +%s)
	if ! (cd "$tree" && "$go" test -count=1 -vet=off -skip "$unit_skip" "./$p/...") >"$logs/unit-baseline-${p//\//_}.log" 2>&1; then
		echo "mutants: the unit tests of $p fail without a mutation (see $logs); fix that first" >&2
		exit 2
	fi
	t=$((5 * ($(date +%s) - start)))
	[ "$t" -ge 60 ] || t=60
	for d in $(cd "$tree" && "$go" list -f '{{.Dir}}' "./$p/..."); do
		unit_timeout[${d#"$tree/"}]=$t
		if [ "$select_tests" != 0 ] && ! cover_profiles "${d#"$tree/"}"; then
			echo "mutants: no cover profiles of ${d#"$tree/"} (see $work/cover): its mutants run all its unit tests" >&2
		fi
	done
	(cd "$tree" && "$gremlins" unleash --dry-run --workers 1 $gremlins_flags -o "$work/gremlins.json" "./$p") \
		>"$logs/gremlins-${p//\//_}.log" 2>&1 || { echo "mutants: gremlins failed on $p (see $logs)" >&2; exit 2; }
	"$work/auto" list -root "$tree" -pkg "$p" "$work/gremlins.json" >>"$work/mutants.tsv" 2>>"$logs/dropped.log" || exit 2
done
declare -A module_seconds
if [ "$select_tests" != 0 ] && [ -n "$module_tests" ]; then
	coverpkg=$(cd "$tree" && for p in $packages; do "$go" list "./$p/..."; done | paste -sd, -) || exit 2
	for d in $module_tests; do
		# The module's tests must pass without a mutation, as the packages' own must.
		profile_tests "$d" "$coverpkg" "$work/cover/module_${d//\//_}" || exit 2
		module_seconds[$d]=${profiled_seconds:-12}
	done
fi
# A triage row of these packages that names no mutant of the listing went stale (the code moved
# since): its mutant runs untriaged under another name. Say which, to rename them.
stale=$(
	sed -n 's/^| `\([^`]*\)`.*/\1/p' "$triage" |
		awk -v pk="$packages" 'BEGIN { n = split(pk, p, " ") } { for (i = 1; i <= n; i++) if (index($0, p[i] "/") == 1) { print; next } }' |
		LC_ALL=C sort -u | LC_ALL=C comm -23 - <(awk -F '\t' '{ print $1 ":" $2 ":" $3 " " $4 }' "$work/mutants.tsv" | LC_ALL=C sort -u)
)
if [ -n "$stale" ]; then
	echo "mutants: triage rows that name no mutant of the listing (the code moved; rename them in $triage):" >&2
	printf '  %s\n' "$stale" >&2
fi
if [ -n "${MUTATIONS_AUTO_MATCH:-}" ]; then
	awk -F '\t' -v re="$MUTATIONS_AUTO_MATCH" '($1 ":" $2 ":" $3 " " $4) ~ re' "$work/mutants.tsv" >"$work/match.tsv" &&
		mv "$work/match.tsv" "$work/mutants.tsv" || exit 2
	packages="$packages matching $MUTATIONS_AUTO_MATCH"
fi
if [ -n "${MUTATIONS_AUTO_EXCLUDE:-}" ]; then
	awk -F '\t' -v re="$MUTATIONS_AUTO_EXCLUDE" '($1 ":" $2 ":" $3 " " $4) !~ re' "$work/mutants.tsv" >"$work/match.tsv" &&
		mv "$work/match.tsv" "$work/mutants.tsv" || exit 2
	packages="$packages but $MUTATIONS_AUTO_EXCLUDE"
fi
total=$(wc -l <"$work/mutants.tsv")
if [ "$max" -gt 0 ] && [ "$max" -lt "$total" ]; then
	echo "mutants: a sample: the first $max of $total mutants of $packages"
	head -n "$max" "$work/mutants.tsv" >"$work/sample.tsv" && mv "$work/sample.tsv" "$work/mutants.tsv"
	title="A sample: the first $max of the $total mutants of $packages."
else
	echo "mutants: $total mutants of $packages"
	title="Every mutant ($total) of $packages."
fi

# An earlier run's results (MUTATIONS_AUTO_RESUME): its rows, but the undecided ones, by mutant.
earlier=$work/earlier.tsv
: >"$earlier"
if [ "${MUTATIONS_AUTO_RESUME:-0}" != 0 ] && [ "$(cat "$work/fingerprint" 2>/dev/null)" = "$fingerprint" ]; then
	cat "$results".* 2>/dev/null | awk -F '\t' 'NF == 7 && $6 != "" && $6 != "undecided"' | cut -f2- | sort -u >"$earlier"
	resumed=$(awk -F '\t' 'NR == FNR { want[$1 FS $2 FS $3 FS $4] = 1; next } ($1 FS $2 FS $3 FS $4) in want' "$work/mutants.tsv" "$earlier" | wc -l)
	echo "mutants: resuming: $resumed of them have a result of an earlier run over the same inputs"
	title="$title Resumed: $resumed of their results come from an earlier run over the same inputs (MUTATIONS_AUTO_RESUME)."
else
	[ "${MUTATIONS_AUTO_RESUME:-0}" = 0 ] || echo "mutants: resuming: no earlier run over the same inputs; every mutant runs"
	rm -rf "$diffs" "$results" "$results".* || exit 2
fi
mkdir -p "$diffs" && echo "$fingerprint" >"$work/fingerprint" || exit 2
if [ "$conformance_stage" = 0 ]; then
	title="$title Unit tests only: the conformance stage was not run, so every survivor of the unit tests counts as lived."
fi
if [ "$conformance_stage" != 0 ] && [ "${MUTATIONS_AUTO_BASELINE:-1}" != 0 ]; then
	if ! conformance "$logs/baseline.log"; then
		echo "mutants: the conformance cases fail without a mutation (see $logs/baseline.log); fix that first" >&2
		exit 2
	fi
	echo "mutants: conformance baseline passed (no mutation)"
fi

# run_mutants K runs worker K's share of the mutants (every jobs_n-th, from the K-th) in its
# own copy of the tree (worker 1 in the tree itself), writing "index<TAB>result line" rows to
# $results.K and a line a mutant to the output.
run_mutants() {
	local k=$1 i=0 orig=$work/orig-$1.go
	if [ "$k" -gt 1 ]; then
		tree=$work/tree-$k runner=$work/pkft-runner-$k
	fi
	: >"$results.$k"
	while IFS=$'\t' read -r file line col type status <&3; do
		i=$((i + 1))
		[ $(((i - 1) % jobs_n)) -eq $((k - 1)) ] || continue
		id="$file:$line:$col $type"
		if [ -s "$earlier" ]; then
			row=$(awk -F '\t' -v f="$file" -v l="$line" -v c="$col" -v t="$type" '$1 == f && $2 == l && $3 == c && $4 == t { print; exit }' "$earlier")
			if [ -n "$row" ]; then
				printf '%s\t%s\n' "$i" "$row" >>"$results.$k"
				printf 'mutant %-60s %s%s (earlier run)\n' "$id" "$(cut -f5 <<<"$row")" "$(cut -f6 <<<"$row" | sed 's/^./ by &/')"
				continue
			fi
		fi
		name=$(printf '%s' "$id" | tr '/: ' '___')
		pkg=$(dirname "$file")
		cp "$tree/$file" "$orig" || return 2
		start=$(date +%s)
		result="" detail=""
		"$work/auto" apply -root "$tree" "$file" "$line" "$col" "$type" 2>"$logs/$name.apply.log"
		case $? in
		0) ;;
		3) result=no-change ;;
		*) echo "mutants: cannot apply $id (see $logs/$name.apply.log)" >&2; return 2 ;;
		esac
		# The unit tests to run: those that ran the mutated code (see cover_profiles).
		tests=all
		if [ "$select_tests" != 0 ] && compgen -G "$work/cover/${pkg//\//_}/*.cov" >/dev/null; then
			tests=$("$work/auto" covering -profiles "$work/cover/${pkg//\//_}" -module "$module" "$file" "$line" "$col") || return 2
		fi
		unit_run=() utimeout=${unit_timeout[$pkg]:-60}
		case $tests in
		all | none) ;;
		*) unit_run=(-run "$tests") utimeout=$(run_timeout "$work/cover/${pkg//\//_}" "$tests" "$utimeout") ;;
		esac
		if [ -z "$result" ]; then
			diff -u --label "a/$file" --label "b/$file" "$orig" "$tree/$file" >"$diffs/$name.diff"
			ran_tests=0
			# go test builds the package first: a mutant it cannot build is not viable.
			if [ "$tests" = none ]; then
				if ! (cd "$tree" && "$go" build "./$pkg") >"$logs/$name.unit.log" 2>&1; then
					result=not-viable
				else
					echo "no unit test of $pkg runs $file:$line" >>"$logs/$name.unit.log"
				fi
			elif ! (cd "$tree" && "$go" test -count=1 -vet=off -failfast -skip "$unit_skip" "${unit_run[@]}" -timeout "${utimeout}s" "./$pkg") >"$logs/$name.unit.log" 2>&1; then
				if grep -qE '^FAIL[[:space:]].*\[(build|setup) failed\]$' "$logs/$name.unit.log"; then
					result=not-viable
				else
					unit_killed "$logs/$name.unit.log"
				fi
			else
				ran_tests=1
			fi
			# A survivor the triage calls equivalent takes no further step (its own package's
			# tests, which ran, tell whether the triage went stale).
			if [ -z "$result" ] && [ "${MUTATIONS_AUTO_EQUIVALENT:-}" != run ] &&
				[ "$("$work/auto" verdict -triage "$triage" "$id")" = equivalent ]; then
				result=lived detail="triaged equivalent (module tests and conformance not run)"
			fi
			# Then the module's other tests that ran the mutated code (pkft's API tests).
			for d in $module_tests; do
				[ -z "$result" ] && compgen -G "$work/cover/module_${d//\//_}/*.cov" >/dev/null || continue
				more=$("$work/auto" covering -profiles "$work/cover/module_${d//\//_}" -module "$module" "$file" "$line" "$col") || return 2
				case $more in none | all) continue ;; esac
				ran_tests=1
				echo "--- the tests of $d that run $file:$line" >>"$logs/$name.unit.log"
				if ! (cd "$tree" && "$go" test -count=1 -vet=off -failfast -skip "$unit_skip" -run "$more" -timeout "$(run_timeout "$work/cover/module_${d//\//_}" "$more" $((5 * ${module_seconds[$d]:-12} + 60)))s" "./$d") >>"$logs/$name.unit.log" 2>&1; then
					tests_of=$d
					[ "$d" = . ] && tests_of=pkft
					unit_killed "$logs/$name.unit.log" "$tests_of"
				fi
			done
			if [ -z "$result" ] && [ "$conformance_stage" = 0 ]; then
				result=lived detail="unit tests only (conformance not run)"
				[ "$ran_tests" = 1 ] || detail="$detail; no unit test runs it"
			fi
			if [ -z "$result" ]; then
				conformance "$logs/$name.conformance.log"
				rc=$?
				first=$(first_failed "$logs/$name.conformance.log")
				if [ "$rc" -eq 3 ]; then
					echo "mutants: the Go runner does not build with $id (see $logs/$name.conformance.log)" >&2
					cp "$orig" "$tree/$file"
					return 2
				elif [ -n "$first" ]; then
					result=killed-conformance detail=$first
				elif [ "$rc" -ne 0 ]; then
					result=undecided detail="no case failed, the run did (exit $rc): $logs/$name.conformance.log"
				else
					result=lived
				fi
			fi
		fi
		cp "$orig" "$tree/$file" || return 2
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$file" "$line" "$col" "$type" "$result" "$detail" >>"$results.$k"
		printf 'mutant %-60s %s%s (%ds)\n' "$id" "$result" "${detail:+ by $detail}" "$(($(date +%s) - start))"
	done 3<"$work/mutants.tsv"
}

# The workers: worker 1 in the tree, the others in copies of it made now (with the cover
# profiles' run behind them, identical to it). Their rows go back into the listing's order.
# (An earlier run's rows are in $earlier now.)
rm -f "$results" "$results".*
for k in $(seq 2 "$jobs_n"); do
	rm -rf "$work/tree-$k" && cp -a "$tree" "$work/tree-$k" || exit 2
done
pids=()
for k in $(seq 1 "$jobs_n"); do
	run_mutants "$k" &
	pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do
	wait "$pid" || failed=1
done
[ "$failed" = 0 ] || { echo "mutants: a worker stopped (above)" >&2; exit 2; }
sort -t $'\t' -k1,1n "$results".* | cut -f2- >"$results" || exit 2

"$work/auto" report -triage "$triage" -diffs "$diffs" -title "$title" -o "$report" "$results" | tee "$work/score.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 2
echo "mutants: report in $report"
# A survivor no triage calls equivalent is a hole in the gate (or an equivalent to triage).
! grep -q '^mutants: survived ' "$work/score.txt"
