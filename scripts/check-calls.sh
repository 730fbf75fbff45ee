#!/usr/bin/env bash
# No two files of one src/ folder call each other, directly or round a longer
# circle (docs/architecture.md): read from the object files' symbol tables
# (nm: what each file defines, what it uses), so it sees calls that no
# include shows. Run by ctest on the build's objects.
#   scripts/check-calls.sh OBJDIR   (OBJDIR: build/CMakeFiles/plateau_obj.dir)
# Objects whose source file is gone (a stale build) are skipped.
set -euo pipefail
obj=${1:?usage: scripts/check-calls.sh OBJDIR}
root="$(cd "$(dirname "$0")/.." && pwd)"
[ -d "$obj/src" ] || { echo "check-calls: no object files under $obj/src" >&2; exit 2; }
status=0
for dir in "$obj"/src/*/; do
  folder=$(basename "$dir")
  # one line per (file, D|U, symbol) for the folder's objects
  for o in "$dir"*.o; do
    [ -e "$o" ] || continue
    f=$(basename "$o" .o)
    [ -e "$root/src/$folder/$f" ] || continue
    nm "$o" | awk -v f="$f" '$1 == "U" {print f, "U", $2; next} NF == 3 && $2 ~ /^[TDRB]$/ {print f, "D", $3}'
  done | awk -v folder="$folder" '
    $2 == "D" { def[$3] = $1; next }
    { use[++n] = $1 SUBSEP $3 }
    END {
      for (i = 1; i <= n; i++) {
        split(use[i], p, SUBSEP)
        if ((p[2] in def) && def[p[2]] != p[1]) { e = p[1] SUBSEP def[p[2]]; if (!(e in edge)) { edge[e] = p[2]; out[p[1]] = out[p[1]] " " def[p[2]] } }
      }
      # depth-first search for a circle among the folder files
      for (f in out) state[f] = 0
      for (f in out) if (state[f] == 0 && visit(f)) exit 1
    }
    function visit(f,   k, m, t, i) {
      state[f] = 1; stack[++depth] = f
      m = split(out[f], t, " ")
      for (k = 1; k <= m; k++) {
        if (state[t[k]] == 1) {
          msg = t[k]; for (i = depth; i >= 1 && stack[i] != t[k]; i--) msg = stack[i] " -> " msg
          printf "check-calls: src/%s/: %s -> %s (calls %s)\n", folder, t[k], msg, edge[f SUBSEP t[k]] > "/dev/stderr"
          return 1
        }
        if (state[t[k]] == 0 && visit(t[k])) return 1
      }
      state[f] = 2; depth--
      return 0
    }' || status=1
done
[ "$status" = 0 ] && echo "check-calls: no circle of calls between the files of a folder"
exit "$status"
