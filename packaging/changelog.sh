#!/bin/sh
# changelog.sh VERSION - a debian/changelog entry for VERSION, built from
# the tree's git history (the last commit's subject), for `make deb`.
set -eu
ver=${1:?usage: changelog.sh VERSION}
subject=$(git log -1 --format=%s 2>/dev/null || echo "build from the tree")
date=$(git log -1 --format=%aD 2>/dev/null || date -R)
cat <<EOT
advshim ($ver) unstable; urgency=medium

  * Built from the tree by make deb at $(git rev-parse --short HEAD 2>/dev/null || echo unknown).
  * Last commit: $subject

 -- advshim maintainers <advshim@localhost>  $date
EOT
