#!/usr/bin/env bash
# Rules the compiler does not enforce: banned unsafe or locale-dependent C
# calls, no printing or exiting from the library, and the folders' dependency
# order of docs/architecture.md (includes never climb, internal headers stay
# in their folder, no include circles). Run by ctest.
set -u
cd "$(dirname "$0")/.."
status=0
banned='\b(atoi|atol|atof|sscanf|strtok|strcpy|strcat|sprintf|vsprintf|gets)\s*\('
if grep -rnE "$banned" src include --include='*.c' --include='*.h'; then
  echo "check-src: banned call above (use strtol/strtod, snprintf, memcpy with lengths)" >&2
  status=1
fi
# The library never prints to stdout or exits; only src/cli may.
if grep -rnE '\b(exit|abort)\s*\(|\bprintf\s*\(|\bputs\s*\(' src --include='*.c' | grep -v '^src/cli/'; then
  echo "check-src: the library must not print to stdout or exit (return a status)" >&2
  status=1
fi
# The dependency order: docs/architecture.md holds the order line and the
# table of which folder implements which public header; this reads both.
arch=docs/architecture.md
files=$(ls src/*/*.[ch] include/plateau/*.h)
# shellcheck disable=SC2086
if ! awk -v arch="$arch" '
  function fail(where, msg) { print where ": " msg > "/dev/stderr"; bad = 1 }
  FILENAME == arch && /^base → / && !have_order {
    n = split($0, lv, / → /)
    for (i = 1; i <= n; i++) { m = split(lv[i], ds, /, /); for (j = 1; j <= m; j++) level[ds[j]] = i }
    have_order = 1; next
  }
  FILENAME == arch && /^\| src\/[a-z]+\/ \|/ {
    split($0, col, /\|/); d = col[2]; gsub(/^ src\/|\/ $/, "", d); listed[d] = 1
    m = split(col[3], hs, / +/); for (j = 1; j <= m; j++) if (hs[j] != "") owner[hs[j]] = d
    next
  }
  FILENAME == arch { next }
  FNR == 1 {
    split(FILENAME, part, "/")
    here = part[1] == "include" ? owner[part[3]] : part[2]
  }
  /^[ \t]*#[ \t]*include[ \t]*[<"]/ {
    line = $0; sub(/^[ \t]*#[ \t]*include[ \t]*/, "", line)
    quote = substr(line, 1, 1); path = substr(line, 2); sub(/[>"].*/, "", path)
    target = ""; dir = ""
    if (path ~ /^plateau\//) { h = substr(path, 9); target = "include/" path; dir = owner[h] }
    else if (quote == "\"" && part[1] == "include") { target = "include/plateau/" path; dir = owner[path] }
    else if (quote == "\"" && path ~ /\//) { target = "src/" path; dir = path; sub(/\/.*/, "", dir) }
    else if (quote == "\"") { target = "src/" part[2] "/" path; dir = part[2] }
    if (target == "") next
    where = FILENAME ":" FNR
    if (dir == "") { fail(where, "includes <" path ">, which no folder of " arch " implements"); next }
    print FILENAME, target > edges
    if (target == FILENAME) fail(where, "includes itself")
    if (here == "" || dir == here) next
    if (path ~ /_int\.h$/) fail(where, "includes " path ", internal to src/" dir "/")
    else if (level[dir] >= level[here])
      fail(where, "src/" here "/ includes " path " of src/" dir "/, which is not below it in " arch)
  }
  END {
    if (!have_order) fail(arch, "no order line (base → ...)")
    n = split(all, fs, " ")
    for (i = 1; i <= n; i++) {
      split(fs[i], part, "/")
      if (part[1] == "include" && !(part[3] in owner)) fail(fs[i], "public header not in the table of " arch)
      if (part[1] == "src" && !(part[2] in level)) fail(fs[i], "folder src/" part[2] "/ is not in the order line of " arch)
      if (part[1] == "src" && !(part[2] in listed)) fail(fs[i], "folder src/" part[2] "/ is not in the table of " arch)
    }
    exit bad
  }
' all="$files" edges=/dev/stdout "$arch" $files >"${TMPDIR:-/tmp}/check-src-edges.$$"; then
  echo "check-src: the includes above break the order of $arch" >&2
  status=1
fi
if ! tsort "${TMPDIR:-/tmp}/check-src-edges.$$" >/dev/null 2>"${TMPDIR:-/tmp}/check-src-loops.$$"; then
  sed 's/^/check-src: /' "${TMPDIR:-/tmp}/check-src-loops.$$" >&2
  echo "check-src: the files above include each other in a circle" >&2
  status=1
fi
rm -f "${TMPDIR:-/tmp}/check-src-edges.$$" "${TMPDIR:-/tmp}/check-src-loops.$$"
[ $status -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $status
