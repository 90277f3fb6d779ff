#!/bin/sh
# find-jdk.sh - print the directory of a JDK (javac and jlink) of feature
# release 21 or newer, preferring $JAVA_HOME, then Temurin 25, then the
# newest under /usr/lib/jvm.  Exit 1 with a one-line reason on stdout when
# there is none (the caller prints it).
#   ADVSHIM_LUCENE_JDK=DIR   use exactly this one (checked the same way)
set -u
jvm_root=${ADVSHIM_JVM_ROOT:-/usr/lib/jvm}
min=21

# feature DIR - the JDK's feature release (25 for 25.0.3, 8 for 1.8.0), or 0.
feature() {
	v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$1/release" 2>/dev/null)
	case $v in
	1.*) v=${v#1.} ;;
	esac
	v=${v%%[!0-9]*}
	echo "${v:-0}"
}

ok() {
	[ -x "$1/bin/javac" ] && [ -x "$1/bin/java" ] && [ "$(feature "$1")" -ge "$min" ]
}

if [ -n "${ADVSHIM_LUCENE_JDK:-}" ]; then
	if ok "$ADVSHIM_LUCENE_JDK"; then
		echo "$ADVSHIM_LUCENE_JDK"
		exit 0
	fi
	echo "ADVSHIM_LUCENE_JDK=$ADVSHIM_LUCENE_JDK is not a JDK $min+ (bin/javac, release file)"
	exit 1
fi
for d in ${JAVA_HOME:-} "$jvm_root/temurin-25-jdk-amd64"; do
	if [ -n "$d" ] && ok "$d"; then
		echo "$d"
		exit 0
	fi
done
best= bestv=0 seen=
for d in "$jvm_root"/*/; do
	d=${d%/}
	[ -L "$d" ] && continue
	[ -x "$d/bin/javac" ] || continue
	v=$(feature "$d")
	seen="$seen ${d##*/}=$v"
	if [ "$v" -ge "$min" ] && [ "$v" -gt "$bestv" ]; then
		best=$d bestv=$v
	fi
done
if [ -n "$best" ]; then
	echo "$best"
	exit 0
fi
echo "no JDK $min+ under $jvm_root (found:${seen:- none}); Lucene 10 needs Java 21+ (Temurin 25, or openjdk-21-jdk-headless where the distribution has it)"
exit 1
