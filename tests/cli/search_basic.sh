#!/usr/bin/env bash
# `plateau search` (docs/search.md): counts that add up, predict's fields in
# every result, constraints obeyed, and output that does not depend on the
# number of threads. Small spaces only (Llama-2 7B on 8-16 GPUs).
. "$(dirname "$0")/lib.sh"

# col FILE NAME: the CSV column NAME, one value per row.
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
# json_int FILE KEY: the first integer value of "KEY": in FILE.
json_int() { grep -o "\"$2\": *[0-9]*" "$1" | head -1 | grep -o '[0-9]*$'; }

# text: the counts are printed
expect_ok search --model llama2-7b --gpus 8 --gbs 16 --threads 1
check "text names the layouts considered" grep -qE '^layouts: [0-9]+ considered' "$TMP/out"
check "text has a ranked table" grep -qE '^ +1 +[0-9]+ +[0-9]+' "$TMP/out"

# JSON: considered = rejected + pruned + evaluated; results carry predict's object
expect_ok search --model llama2-7b --gpus 8 --gbs 16 --top 3 --format json --threads 1
cp "$TMP/out" "$TMP/s.json"
considered=$(json_int "$TMP/s.json" considered)
rejected=$(json_int "$TMP/s.json" rejected_total)
pruned=$(json_int "$TMP/s.json" pruned)
evaluated=$(json_int "$TMP/s.json" evaluated)
check "considered ($considered) = rejected + pruned + evaluated" \
  [ "$considered" -eq $((rejected + pruned + evaluated)) ]
check "4350 layouts for 7B on 8 GPUs at gbs 16 (test_search_prune counts the same space)" \
  [ "$considered" -eq 4350 ]
check "rejections by reason" grep -q '"does_not_fit":' "$TMP/s.json"
check "three results" [ "$(grep -o '"rank":' "$TMP/s.json" | wc -l)" -eq 3 ]
check "results carry predict's fields" grep -q '"step_time_s":' "$TMP/s.json"
check "results carry the layout" grep -q '"layout":' "$TMP/s.json"

# CSV: byte-identical with 1 and 2 threads, best first
expect_ok search --model llama2-7b --gpus 16 --gbs 32 --top 8 --format csv --threads 1
cp "$TMP/out" "$TMP/t1.csv"
expect_ok search --model llama2-7b --gpus 16 --gbs 32 --top 8 --format csv --threads 2
check "CSV identical for --threads 1 and 2" cmp -s "$TMP/t1.csv" "$TMP/out"
check "CSV has predict's columns and rank" grep -q '^model.name,.*,tokens_per_s,.*,rank,objective,objective_name,objective_throughput,objective_tokens_per_joule,objective_cost$' <(head -1 "$TMP/t1.csv")
check "8 rows" [ "$(($(wc -l <"$TMP/t1.csv") - 1))" -eq 8 ]
col "$TMP/t1.csv" tokens_per_s >"$TMP/tps"
check "ranked by tokens/s, best first" sort -g -r -c "$TMP/tps"

# pruning does not change the answer: --exhaustive gives the same top 3
expect_ok search --model llama2-7b --gpus 4 --gbs 8 --top 3 --format csv --threads 2
cp "$TMP/out" "$TMP/pruned.csv"
expect_ok search --model llama2-7b --gpus 4 --gbs 8 --top 3 --format csv --threads 2 --exhaustive
check "exhaustive and pruned agree" cmp -s "$TMP/pruned.csv" "$TMP/out"

# constraints: run options and --fix
expect_ok search --model llama2-7b --gpus 16 --gbs 32 --tp 2 --fix shard=zero3,recompute=none --format csv --threads 2
check "--tp 2 is kept" [ -z "$(col "$TMP/out" layout.tp | grep -v '^2$')" ]
check "--fix shard=zero3 is kept" [ -z "$(col "$TMP/out" layout.shard | grep -v '^zero3$')" ]
check "--fix recompute=none is kept" [ -z "$(col "$TMP/out" layout.recompute | grep -v '^none$')" ]

# objectives
expect_ok search --model llama2-7b --gpus 8 --gbs 16 --objective cost --gpu-hour-price 2.5 --top 3 --format csv --threads 2
check "cost column" grep -q ',objective,cost_usd_per_mtok,objective_name,objective_throughput,objective_tokens_per_joule,objective_cost$' <(head -1 "$TMP/out")
# each objective has its own column whatever --objective ranks by (issue 20); the ranked one equals "objective"
check "per-objective columns follow --objective" awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  { if ($c["objective_name"] != "cost" || $c["objective_cost"] != $c["objective"] || $c["objective_cost"] != $c["cost_usd_per_mtok"] ||
        $c["objective_throughput"] != $c["tokens_per_s"] || $c["objective_tokens_per_joule"] != $c["power.tokens_per_j"]) bad = 1 }
  END { exit bad || NR < 2 }' "$TMP/out"
col "$TMP/out" objective >"$TMP/cost"
check "cost ranked lowest first" sort -g -c "$TMP/cost"
expect_ok search --model llama2-7b --gpus 8 --gbs 16 --objective tokens-per-joule --top 3 --format csv --threads 2
col "$TMP/out" power.tokens_per_j >"$TMP/tpj"
check "tokens/J ranked best first" sort -g -r -c "$TMP/tpj"
expect_ok search --model llama2-7b --gpus 8 --gbs 16 --top 3 --format csv --threads 2
check "no price: objective_cost empty" awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  { if ($c["objective_name"] != "throughput" || $c["objective_cost"] != "" || $c["objective_throughput"] != $c["objective"]) bad = 1 }
  END { exit bad || NR < 2 }' "$TMP/out"

# nothing fits: a result with the closest layout, not an error
expect_ok search --model llama2-70b --gpus 8 --gbs 8 --format json --threads 2
check "no results" grep -q '"results": \[\]' "$TMP/out"
check "closest layout shown" grep -q '"closest":' "$TMP/out"
expect_ok search --model llama2-70b --gpus 8 --gbs 8 --threads 2
check "text says nothing fits" grep -q 'no layout fits: the closest needs' "$TMP/out"
finish
