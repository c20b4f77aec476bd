#!/usr/bin/env bash
# ci-step.sh: the conformance step an implementation's repository copies into its CI (any CI that
# runs a shell with Docker; docs/adding-an-implementation.md, "6. The conformance image"). Runs the
# conformance image for the implementation in DIR, without a network and as the caller's user, and
# leaves results.json and junit.xml in REPORT; its exit status is the suite's.
#
#   ci-step.sh NAME DIR COMMAND SUPPORTS [ROLES] [REPORT]
#
#   NAME      the implementation's name (letters, digits, _): its cases' direction names
#   DIR       a directory with its runner program and its supports file, mounted at /impl
#   COMMAND   the runner's command line in the container, as /impl/... (e.g. "/impl/my-runner serve")
#   SUPPORTS  its supports file in the container (e.g. /impl/my.supports)
#   ROLES     the roles whose cases run (e.g. consumer,writer; empty: every case of the implementation)
#   REPORT    where results.json and junit.xml go (default ./conformance-report)
#
# PKFT_CONFORMANCE_IMAGE names the image (default pkft-conformance:latest; load it first, e.g.
# docker load -i pkft-conformance.tar.gz). The runner program must run on the image's Debian 12
# (glibc 2.36) with what the image has (Java 17, Python 3.11, no compilers): a static or
# self-contained program is simplest.
set -euo pipefail

if [ $# -lt 4 ] || [ $# -gt 6 ]; then
  sed -n 7p "$0" | sed 's/^# *//' >&2
  exit 2
fi
name=$1 dir=$(cd "$2" && pwd) command=$3 supports=$4 roles=${5:-} report=${6:-conformance-report}
mkdir -p "$report"
report=$(cd "$report" && pwd)
exec docker run --rm --network none --user "$(id -u):$(id -g)" \
  -v "$dir:/impl:ro" -v "$report:/results" "${PKFT_CONFORMANCE_IMAGE:-pkft-conformance:latest}" \
  --impl "$name=$command" --supports "$supports" ${roles:+--roles "$roles"}
