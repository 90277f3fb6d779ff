# build-common.sh - what tools/lucene/build.sh and tools/opensearch/build.sh
# share; sourced (POSIX sh) by them.  When sourced it only sets $here to
# the calling script's directory (tools/NAME, where its pom.xml is).
#
# Without a JDK 21+ or Maven a build says so in one line and exits 0 (the
# rest of the project builds without Java).  Maven runs offline first (-o),
# so a machine that resolved once builds without the network; only when
# that fails for want of an artifact does it resolve from Maven Central.

here=$(cd "$(dirname "$0")" && pwd)

# jvm_setup NAME BUILD SUB - the start of a build: sets build (BUILD,
# created, absolute), out (BUILD/SUB, created) and log (out/mvn.log), then
# jvm_find NAME.
jvm_setup() {
	mkdir -p "$2/$3"
	build=$(cd "$2" && pwd)
	out=$build/$3
	log=$out/mvn.log
	jvm_find "$1"
}

# jvm_supported NAME VAR VERSION SERIES WHY - exits 1 saying so unless
# VERSION (the make variable VAR's) is of SERIES ("10.x": 10.anything).
jvm_supported() {
	case $3 in
	"${4%x}"*) return 0 ;;
	esac
	echo "$1: $2=$3: only $4 is supported ($5)" >&2
	exit 1
}

# jvm_find NAME - sets $jdk to a JDK 21+ (tools/lucene/find-jdk.sh) and
# checks that Maven (${MVN:-mvn}) is there; when either is missing prints
# "NAME: not built: WHY" and exits 0.
jvm_find() {
	if ! jdk=$(sh "$here/../lucene/find-jdk.sh"); then
		echo "$1: not built: $jdk"
		exit 0
	fi
	if ! command -v "${MVN:-mvn}" >/dev/null 2>&1; then
		echo "$1: not built: Maven (mvn) not found; make deps installs it"
		exit 0
	fi
}

# jvm_mvn LOG ARGS... - mvn, quiet and in batch mode, on $here/pom.xml with
# the JDK of jvm_find; its output appended to LOG.  Its exit status.
jvm_mvn() {
	_log=$1
	shift
	JAVA_HOME=$jdk "${MVN:-mvn}" -B -q -f "$here/pom.xml" "$@" >>"$_log" 2>&1
}

# jvm_package NAME WHAT LOG ARGS... - `mvn ARGS... package`, into a fresh
# LOG: offline first; online only when offline failed for want of an
# artifact (says "NAME: resolving WHAT ..." then; a compile error is left
# as it is).  Judge the result with jvm_failed.
jvm_package() {
	_name=$1 _what=$2 _log=$3
	shift 3
	: >"$_log"
	if ! jvm_mvn "$_log" -o "$@" package && grep -q 'offline mode' "$_log"; then
		echo "$_name: resolving $_what and the build plugins (Maven Central)"
		mv "$_log" "$_log.offline"
		jvm_mvn "$_log" "$@" package
	fi
}

# jvm_failed LOG FILE... - true (status 0) when a FILE is missing or LOG
# reports an error; then prints LOG's last 15 error lines on stderr.
jvm_failed() {
	_log=$1
	_ok=1
	shift
	for _f in "$@"; do
		[ -f "$_f" ] || _ok=0
	done
	grep -q 'BUILD FAILURE\|\[ERROR\]' "$_log" && _ok=0
	[ "$_ok" = 1 ] && return 1
	grep '\[ERROR\]' "$_log" | grep -v 'Help 1\|^\[ERROR\] *$\|Re-run Maven\|full stack\|following articles' |
		tail -n 15 >&2
	return 0
}

# jvm_launcher IN OUT - writes the launcher OUT (mode 755) from IN with
# @JAVA@ replaced by the JDK's java; exits 1 when it cannot.
jvm_launcher() {
	sed "s|@JAVA@|$jdk/bin/java|" "$1" >"$2.tmp" &&
		chmod 755 "$2.tmp" &&
		mv "$2.tmp" "$2" || exit 1
}

# jvm_install SRC DST - copies SRC (a jar Maven made) to DST through
# DST.tmp renamed over it, so DST is a new file: a JVM started on the old
# DST (a soak, a node) keeps the jar it opened, where cp onto DST would
# truncate and rewrite that very file under it.  Exits 1 when it cannot.
jvm_install() {
	cp "$1" "$2.tmp" && mv -f "$2.tmp" "$2" || exit 1
}

# jvm_version - the JDK's version (JAVA_VERSION of its release file).
jvm_version() {
	sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$jdk/release"
}
