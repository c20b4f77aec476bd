#!/usr/bin/env bash
# Fetches the released Paimon jar the Java runner compiles against (see compat/java/pom.xml for
# why it is not an ordinary dependency) into compat/java/lib/. Maven checks its checksum strictly (-C). The
# version and artifact come from the pom's paimon.version and paimon.bundle properties.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
pom="$root/compat/java/pom.xml"
version=$(sed -n 's:.*<paimon.version>\(.*\)</paimon.version>.*:\1:p' "$pom")
bundle=$(sed -n 's:.*<paimon.bundle>\(.*\)</paimon.bundle>.*:\1:p' "$pom")
lib="$root/compat/java/lib"
jar="$lib/$bundle-$version.jar"
[ -f "$jar" ] && exit 0
mkdir -p "$lib" "$root/.cache"
# Outside the runner project: resolving the runner's own dependencies needs this very jar.
# Plugin 2.8 copies the jar without reading its descriptor, whose parent POM is not served.
cd "$root/.cache"
"${MVN:-mvn}" -q -B -C org.apache.maven.plugins:maven-dependency-plugin:2.8:copy \
  "-Dartifact=org.apache.paimon:$bundle:$version:jar" "-DoutputDirectory=$lib"
echo "fetch-paimon-jar: $jar"
