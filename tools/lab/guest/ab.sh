#!/bin/sh
# SPDX-License-Identifier: MIT
#
# ab.sh EXPERIMENT [ADVSHIM-AB OPTIONS...] - runs an advshim-ab experiment
# in the guest; its results directory is /out/ab (rendered on the host).
. /lab/common.sh

exp=${1:?usage: ab.sh EXPERIMENT [OPTIONS...]}
shift
need_bin advshim-ab
need_bin advshim-load
advshim-ab run --out /out/ab --dir /data --build /opt/advshim/bin --no-plot "$@" "$exp"
