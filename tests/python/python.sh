#!/usr/bin/env bash
# The Python package against the CLI (test_plateau.py), with Debian's python3
# ($PL_PYTHON), the in-tree libplateau.so ($PLATEAU_LIBRARY) and python/ on the
# path. Skipped (77) without python3, or under ASan (python3 itself is not
# instrumented, so an ASan libplateau.so cannot be loaded into it).
set -u
py=${PL_PYTHON:-python3}
command -v "$py" >/dev/null || { echo "no python3: skipped"; exit 77; }
[ "${PL_SANITIZE:-OFF}" = ON ] && { echo "ASan build: skipped"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" # not the source tree: the package is found through PYTHONPATH
PYTHONPATH="$PL_SOURCE_DIR/python" PYTHONDONTWRITEBYTECODE=1 "$py" "$here/test_plateau.py"
