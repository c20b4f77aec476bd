#!/usr/bin/env bash
# check-runner-jar.sh VARIANT JAR: the runner jar carries the runner's full-text stand-ins (package
# io.github.paimonpkft.fulltext and the GlobalIndexerFactory service entry naming it) when VARIANT
# is standin, and neither of them when VARIANT is paimon (Paimon's own module supplies the factory).
set -euo pipefail
variant=$1 jar=$2
entries=$(jar tf "$jar")
service=META-INF/services/org.apache.paimon.globalindex.GlobalIndexerFactory
standins=$(grep -c '^io/github/paimonpkft/fulltext/' <<<"$entries" || true)
has_service=$(grep -cx "$service" <<<"$entries" || true)
case $variant in
standin)
  if [ "$standins" -eq 0 ] || [ "$has_service" -eq 0 ]; then
    echo "check-runner-jar: $jar lacks the full-text stand-ins or their service entry (variant standin)" >&2
    exit 1
  fi ;;
paimon)
  if [ "$standins" -ne 0 ] || [ "$has_service" -ne 0 ]; then
    echo "check-runner-jar: $jar still carries $standins stand-in classes and $has_service service entry (variant paimon)" >&2
    exit 1
  fi ;;
*) echo "check-runner-jar: unknown variant $variant" >&2; exit 2 ;;
esac
