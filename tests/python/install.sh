#!/usr/bin/env bash
# The issue's "Done when", as a new user runs it: `cmake --install` into a
# fresh prefix, `pip install ./python` into a venv of Debian's python3 (PEP 668:
# no pip into the system's python), then
#   python3 -c "import plateau; print(plateau.predict(model='llama2-7b', gpus=8)['step_time_s'])"
# from outside the source tree, with only the prefix's bin/ on PATH to find
# the library; the number must be the CLI's. Also: pkg-config, a C program
# built against the installed headers and library, the man page and the bash
# completion. Skipped (77) without python3 + venv, or under ASan.
. "$PL_SOURCE_DIR/tests/cli/lib.sh"
py=${PL_PYTHON:-python3}
command -v "$py" >/dev/null || { echo "no python3: skipped"; exit 77; }
[ "${PL_SANITIZE:-OFF}" = ON ] && { echo "ASan build: skipped"; exit 77; }
"$py" -c "import venv, ensurepip" 2>/dev/null || { echo "no python3-venv: skipped"; exit 77; }

prefix=$TMP/prefix
check "cmake --install" sh -c "cmake --install '$PL_BUILD_DIR' --prefix '$prefix' >'$TMP/install.log' 2>&1"
for f in bin/plateau lib/libplateau.so lib/libplateau.a include/plateau/api.h \
  include/plateau/plateau.h lib/pkgconfig/plateau.pc share/man/man1/plateau.1 \
  share/bash-completion/completions/plateau; do
  check "installed $f" test -e "$prefix/$f"
done
check "the man page renders" sh -c "! command -v man >/dev/null || man -l '$prefix/share/man/man1/plateau.1' 2>&1 | grep -q 'plateau predict'"
check "the completion loads and completes predict's options" bash -c "
  . '$prefix/share/bash-completion/completions/plateau'
  COMP_WORDS=(plateau predict --tok); COMP_CWORD=2; _plateau
  [ \"\${COMPREPLY[*]}\" = --tokens ]"

# a C program against the installed headers and library (pkg-config)
cat >"$TMP/use.c" <<'C'
#include <plateau/api.h>
#include <stdio.h>
int main(void) {
  const char *argv[] = {"--model", "llama2-7b", "--gpus", "8"};
  char *json = NULL;
  struct pl_diag d;
  if (pl_api_predict(4, argv, &json, &d) != PL_OK) {
    fprintf(stderr, "%s\n", d.msg);
    return 1;
  }
  fputs(json, stdout);
  pl_api_free(json);
  return 0;
}
C
if command -v pkg-config >/dev/null && command -v cc >/dev/null; then
  check "pkg-config knows plateau" sh -c "PKG_CONFIG_PATH='$prefix/lib/pkgconfig' pkg-config --cflags --libs plateau >'$TMP/pc'"
  check "a C program builds against the install" sh -c \
    "cc -o '$TMP/use' '$TMP/use.c' \$(cat '$TMP/pc') -Wl,-rpath,'$prefix/lib'"
  check "and its JSON is the CLI's" sh -c "'$TMP/use' >'$TMP/c.json' &&
    '$prefix/bin/plateau' predict --model llama2-7b --gpus 8 --format json | cmp -s - '$TMP/c.json'"
fi

# pip install ./python into a venv (a copy: the build writes into the source)
cp -r "$PL_SOURCE_DIR/python" "$TMP/python"
rm -rf "$TMP/python/build" "$TMP/python/"*.egg-info
check "venv" "$py" -m venv --system-site-packages "$TMP/venv"
check "pip install ./python" sh -c "cd '$TMP' && '$TMP/venv/bin/python' -m pip install --no-build-isolation --no-index ./python >'$TMP/pip.log' 2>&1 || { cat '$TMP/pip.log'; exit 1; }"
cd "$TMP" || exit 1
step=$(env -u PLATEAU_LIBRARY -u LD_LIBRARY_PATH PATH="$prefix/bin:/usr/bin:/bin" \
  "$TMP/venv/bin/python" -c "import plateau; print(plateau.predict(model='llama2-7b', gpus=8)['step_time_s'])" 2>"$TMP/py.err")
check "python3 -c ... prints a step time (got '$step': $(head -c 300 "$TMP/py.err"))" \
  sh -c "echo '$step' | grep -Eq '^[0-9]+\.[0-9]+(e-?[0-9]+)?$'"
cli=$("$prefix/bin/plateau" predict --model llama2-7b --gpus 8 --format json |
  "$TMP/venv/bin/python" -c "import json, sys; print(json.load(sys.stdin)['step_time_s'])")
check "and it is the CLI's ($step = $cli)" [ "$step" = "$cli" ]
lib=$(env -u PLATEAU_LIBRARY -u LD_LIBRARY_PATH PATH="$prefix/bin:/usr/bin:/bin" \
  "$TMP/venv/bin/python" -c "import plateau; print(plateau.library_path())")
check "the installed library was loaded ($lib)" sh -c "case '$lib' in '$prefix'/*) exit 0;; *) exit 1;; esac"
# python -m plateau (python/plateau/__main__.py) from the installed package: the CLI's document
check "python -m plateau predict prints the CLI's JSON" sh -c "env -u PLATEAU_LIBRARY -u LD_LIBRARY_PATH \
  PATH='$prefix/bin:/usr/bin:/bin' '$TMP/venv/bin/python' -m plateau predict --model llama2-7b --gpus 8 |
  '$TMP/venv/bin/python' -c 'import json, sys; print(json.load(sys.stdin)[\"step_time_s\"])' |
  grep -qx '$cli'"
finish
