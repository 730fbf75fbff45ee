#!/usr/bin/env python3
"""make_inputs.py: the shape list run_all.py times, from plateau itself.

Runs `plateau predict --ops --format json` for each configuration below and
keeps, per configuration, the model's sizes and its op list (GEMM, attention
and memory-bound ops with their shapes and plateau's predicted times), so the
GPU machine needs no plateau build. Usage (from the repository root, after
building into build-test/):

  python3 bench/gpu/make_inputs.py --plateau build-test/plateau --out DIR

writes DIR/shapes.json and copies run_all.py and model.json beside it.
"""
import argparse
import json
import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))

# name, plateau predict arguments: one GPU's share of each layout
CONFIGS = [
    ("llama3.2-1b_seq4096", ["--model", os.path.join(HERE, "model.json"), "--seq", "4096"]),
    ("llama2-7b_seq4096", ["--model", "llama2-7b", "--seq", "4096"]),
    ("llama3-8b_seq8192", ["--model", "llama3-8b", "--seq", "8192"]),
    ("llama3-70b_tp8_seq8192", ["--model", "llama3-70b", "--seq", "8192", "--tp", "8", "--gpus", "8"]),
    ("gpt3-175b_tp8_seq2048", ["--model", "gpt3-175b", "--seq", "2048", "--tp", "8", "--gpus", "8"]),
]
COMMON = ["--gpu", "h100", "--shard", "ddp", "--mbs", "1", "--kernels", "unfused"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plateau", default="build-test/plateau")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    configs = []
    for name, extra in CONFIGS:
        argv = [a.plateau, "predict"] + extra + COMMON + ["--ops", "--format", "json"]
        if "--gpus" not in extra:
            argv += ["--gpus", "1"]
        d = json.loads(subprocess.run(argv, check=True, capture_output=True, text=True).stdout)
        configs.append({"name": name, "argv": argv[1:], "hidden": d["model"]["hidden"],
                        "vocab": d["model"]["vocab"], "layout": d["layout"],
                        "step_time_s": d["step_time_s"], "ops": d["ops"]})
    with open(os.path.join(a.out, "shapes.json"), "w") as f:
        json.dump({"configs": configs}, f, indent=1)
    for fn in ("run_all.py", "model.json"):
        shutil.copy(os.path.join(HERE, fn), os.path.join(a.out, fn))


if __name__ == "__main__":
    main()
