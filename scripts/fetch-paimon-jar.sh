#!/usr/bin/env bash
# Fetches the released Paimon jar the Java runner compiles against (see compat/java/pom.xml for
# why it is not an ordinary dependency) into compat/java/lib/. Maven checks its checksum strictly (-C). The
# version and artifact come from the pom's paimon.version and paimon.bundle properties, unless
# PAIMON_VERSION or PAIMON_BUNDLE overrides them (make passes its variables of the same names; see
# docs/conformance.md, "Running the matrix against another Paimon build"). A -SNAPSHOT version is copied again
# every time, from Maven's local repository when a local build installed it there.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
pom="$root/compat/java/pom.xml"
version=${PAIMON_VERSION:-$(sed -n 's:.*<paimon.version>\(.*\)</paimon.version>.*:\1:p' "$pom")}
bundle=${PAIMON_BUNDLE:-$(sed -n 's:.*<paimon.bundle>\(.*\)</paimon.bundle>.*:\1:p' "$pom")}
lib="$root/compat/java/lib"
jar="$lib/$bundle-$version.jar"
case "$version" in
  *-SNAPSHOT) rm -f "$jar" ;;
  *) [ -f "$jar" ] && exit 0 ;;
esac
mkdir -p "$lib" "$root/.cache"
# Outside the runner project: resolving the runner's own dependencies needs this very jar.
# Plugin 2.8 copies the jar without reading its descriptor, whose parent POM is not served.
cd "$root/.cache"
"${MVN:-mvn}" -q -B -C org.apache.maven.plugins:maven-dependency-plugin:2.8:copy \
  "-Dartifact=org.apache.paimon:$bundle:$version:jar" "-DoutputDirectory=$lib"
echo "fetch-paimon-jar: $jar"
