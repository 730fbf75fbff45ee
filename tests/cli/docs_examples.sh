#!/usr/bin/env bash
# The example command lines of README.md and docs/*.md still work as written
# (session 18, newuser18: a new user follows the README; examples had rotted:
# a `plateau search --strategy` that does not exist, stale figures).
#  - every `plateau VERB ...` the docs name (``` blocks and inline `code`),
#    placeholders (FILE, LOG, A B, ..., alternatives a|b) aside, names only
#    commands, subcommands and options that exist;
#  - the ``` block examples, and the inline ones that name a file, exit 0
#    (run from a scratch directory holding links to the repository's data/,
#    tests/ and bench/, so that the files they write land there);
#  - the output lines README's examples show appear in today's output with
#    every number masked (the figures move with the model and the error
#    bands; labels, columns and layout words must not).
# Not run: `plateau study` (half a minute; tests/cli/study_*.sh cover it).
# docs/cli.md (generated), accuracy.md and history.md (records) are not read.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 0; }

W="$TMP/work"
mkdir -p "$W"
for d in data tests bench; do ln -s "$PL_SOURCE_DIR/$d" "$W/$d"; done

# one line per example: FILE:LINE <tab> kind (block|inline) <tab> command
python3 - "$PL_SOURCE_DIR" >"$TMP/examples" <<'EOF'
import glob, os, re, sys
root = sys.argv[1]
verbs = r'(?:study|predict|search|sweep|collectives|calibrate|trace|validate|list|help)'
files = ['README.md'] + sorted(os.path.relpath(f, root) for f in glob.glob(os.path.join(root, 'docs/*.md'))
                               if not re.search(r'/(cli|accuracy|history)\.md$', f))
for f in files:
    lines = open(os.path.join(root, f)).read().split('\n')
    block, i = False, 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith('```'):
            block = not block
        elif block:
            m = re.match(r'^\s*(?:\$ )?((?:build[\w-]*/)?plateau ' + verbs + r'\b.*)$', line)
            if m:
                cmd, at = m.group(1), i + 1
                while cmd.rstrip().endswith('\\') and i + 1 < len(lines):
                    i += 1
                    cmd = cmd.rstrip()[:-1] + ' ' + lines[i].strip()
                print(f'{f}:{at}\tblock\t{cmd}')
        else:
            for m in re.finditer(r'`((?:build[\w-]*/)?plateau ' + verbs + r'\b[^`]*)`', line):
                print(f'{f}:{i + 1}\tinline\t{m.group(1)}')
        i += 1
EOF
check "examples found" [ "$(wc -l <"$TMP/examples")" -gt 40 ]

ran=0
declare -A seen
while IFS=$'\t' read -r at kind cmd; do
  # a command's output line shown in a block ("plateau predict: llama2-7b on ...")
  case "$cmd" in *plateau\ [a-z]*:*) continue ;; esac
  # placeholders and alternatives: a synopsis, not an example
  if printf '%s' "$cmd" | grep -qE '\.\.\.|…|\b(FILE|LOG|PATH|DIR|BASE|CMD|N|ROW|SIZE)\b|[A-Z]+\.(json|csv)|\bA B\b|[[<|]'; then
    continue
  fi
  run=$(printf '%s' "$cmd" | sed -E 's#[[:space:]]+\#.*$##; s#^(build[a-z-]*/)?plateau#"$PLATEAU"#')
  case "$run" in *'" study'*) continue ;; esac
  [ -n "${seen[$run]:-}" ] && continue
  seen[$run]=1
  ran=$((ran + 1))
  (cd "$W" && PLATEAU="$PLATEAU" timeout 120 bash -c "$run" >"$TMP/eo" 2>"$TMP/ee")
  rc=$?
  check "$at: '$cmd' names only existing commands and options ($(head -c 200 "$TMP/ee"))" \
    sh -c "! grep -qiE 'unknown (option|command|kind|subcommand)' '$TMP/ee'"
  if [ "$kind" = block ] || printf '%s' "$cmd" | grep -qE '(data|tests|bench)/'; then
    check "$at: '$cmd' exits 0 (got $rc: $(head -c 200 "$TMP/ee"))" [ "$rc" -eq 0 ]
  fi
done <"$TMP/examples"
check "examples run ($ran)" [ "$ran" -gt 15 ]

# README's example outputs, numbers masked
mask() { sed -E 's/[-+]?[0-9][0-9.]*/#/g; s/[[:space:]]+/ /g; s/^ //; s/ $//'; }
awk '/^```/ {b = !b; if (b) print "@@block"; next} b' "$PL_SOURCE_DIR/README.md" >"$TMP/readme_blocks"
n_cmd=0
cur=0
while IFS= read -r line; do
  case "$line" in
    @@block) cur=0 ;;
    '$ build/plateau '*)
      n_cmd=$((n_cmd + 1))
      cur=1
      run=${line#\$ build/plateau }
      eval "set -- $run"
      "$PLATEAU" "$@" >"$TMP/readme_out" 2>&1
      check "README: '$line' exits 0" [ $? -eq 0 ]
      mask <"$TMP/readme_out" >"$TMP/readme_masked"
      ;;
    *...* | '' | 'scripts/'*) ;;
    *)
      [ "$cur" -eq 1 ] || continue
      want=$(printf '%s\n' "$line" | mask)
      check "README line '$line' still printed (numbers aside)" grep -qxF -- "$want" "$TMP/readme_masked"
      ;;
  esac
done <"$TMP/readme_blocks"
check "README examples found ($n_cmd)" [ "$n_cmd" -ge 2 ]

# docs/python.md's example of a layout that does not fit: a result, not an
# error (exit 0, memory.fits false, no step figures), and the text says why
# the step figures are missing and what to try
expect_ok predict --model llama3-70b --gpus 512 --framework megatron-core --tp 8 --pp 4
check "no-fit: text says no step was simulated" grep -q 'does not fit, so no step was simulated' "$TMP/out"
check "no-fit: no step section" sh -c "! grep -q '^step\$' '$TMP/out'"
expect_ok predict --model llama3-70b --gpus 512 --framework megatron-core --tp 8 --pp 4 --format json
check "no-fit: JSON fits false, step_time_s null" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (d['memory']['fits'] is False and d['step_time_s'] is None))" "$TMP/out"
expect_ok predict --model llama3-70b --gpus 512 --framework megatron-core --tp 8 --pp 4 --sequence-parallel on
check "fits with --sequence-parallel on" grep -q '^step$' "$TMP/out"
finish
