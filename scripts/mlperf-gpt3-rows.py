#!/usr/bin/env python3
"""Rows of MLPerf Training GPT-3 175B results of submitters other than NVIDIA
(data/validation/mlperf_gpt3_others.csv), in the columns of data/validation/mlperf_gpt3.csv
and by its segment rule (SOURCES.md there): segment = block_start (or eval_stop) to the next
eval_start; tokens per segment from the eval_start epoch_num deltas; steps = tokens / (GBS x
seq); step = median segment / steps. The config: the config_*.sh under ORG/benchmarks/gpt3/
with the system's GPUs and the logged GBS (copies with the same settings: the one in the
folder named after it).
Usage: mlperf-gpt3-rows.py REPO_GIT_DIR VERSION ORG SYSTEM [--header] [--note TEXT]
       mlperf-gpt3-rows.py --image-cols MIRRORS CSV  (print CSV with the image columns appended,
       'attention backend (image)' and 'cuDNN (image)' as for these rows: each row's
       source_ref names its round, result file and config; MIRRORS holds
       mlcommons+training_results_<round>/repo git directories)"""
import csv, io, json, re, statistics, subprocess, sys

import mlperf_cta
IMAGE_COLS = sys.argv[1] == "--image-cols"
def open_repo(repo):
    global REPO, COMMIT, FILES
    REPO = repo
    COMMIT = subprocess.check_output(["git", "-C", REPO, "rev-parse", "HEAD"], text=True).strip()
    FILES = subprocess.check_output(["git", "-C", REPO, "ls-tree", "-r", "--name-only", "HEAD"], text=True).split("\n")
if not IMAGE_COLS:
    REPO, VER, ORG, SYSTEM = sys.argv[1:5]
    NOTE = sys.argv[sys.argv.index("--note") + 1] if "--note" in sys.argv else ""
    open_repo(REPO)
def show(p): return subprocess.check_output(["git", "-C", REPO, "show", f"HEAD:{p}"], text=True)
def env_of(path, e):
    d = path.rsplit("/", 1)[0]
    for line in show(path).splitlines():
        m = re.match(r'\s*source \$\(dirname \$\{BASH_SOURCE\[0\]\}\)/(\S+)', line)
        if m:
            if f"{d}/{m.group(1)}" in FILES: env_of(f"{d}/{m.group(1)}", e)  # absent: the MLPERF_VERSION=v31 branch
            continue
        m = re.match(r'\s*export\s+([A-Za-z0-9_]+)=("?)([^"#\s]*)\2', line)
        if m:
            v = m.group(3)
            mm = re.match(r'\$\{[A-Za-z0-9_]+:[-=]([^}]*)\}$', v)
            e[m.group(1)] = mm.group(1) if mm else v
    return e
if not IMAGE_COLS:
    cfgs = [f for f in FILES if f.startswith(f"{ORG}/benchmarks/gpt3/") and re.search(r"/config_[^/]*\.sh$", f)
            and not re.search(r"/config_(common|fp8|mounts)[^/]*$", f)]
    sysj = json.loads(show(f"{ORG}/systems/{SYSTEM}.json"))
    ngpu = int(sysj["number_of_nodes"]) * int(sysj["accelerators_per_node"])
def cta_caps(cfg, e):
    """'tp=8 cp=1 dp=8 dp_cp=8 pp=2': max_ctas per group of the yaml NCCL_CFG_PATH names
    (conf/nccl/custom_communicator_cta.yaml beside the config); empty where unset. A config
    folder without the implementation (Oracle v4.1: config_*.sh only, no conf/, whose
    config_common.sh exports NCCL_CFG_PATH=/workspace/llm/conf/nccl/custom_communicator_cta.yaml
    and whose result logs print model.nccl_communicator_config_path with that path) takes
    NVIDIA's of the round, as tp_overlap_yaml does; every copy of it must agree."""
    d = cfg.rsplit("/", 1)[0]
    y = d + "/conf/nccl/custom_communicator_cta.yaml"
    if not e.get("NCCL_CFG_PATH"):
        return ""
    if y in FILES:
        return mlperf_cta.caps_of(show(y))
    if any(f.startswith(d + "/conf/") for f in FILES):
        return ""  # the implementation is here but has no such yaml
    impls = sorted({f.rsplit("/conf/", 1)[0] for f in FILES if f.startswith("NVIDIA/benchmarks/gpt3/implementations/") and f.endswith("/conf/nccl/custom_communicator_cta.yaml")})
    got = {mlperf_cta.caps_of(show(i + "/conf/nccl/custom_communicator_cta.yaml")) for i in impls}
    assert len(got) == 1, (cfg, got)
    return got.pop()
def mcore_caps(e):
    """'tp=8 dp=8 pp=2': the per-group NCCL CTA caps the v3.1 image's Megatron-Core reads from the
    environment (Dockerfile MEGATRON_REVISION=df7271285d3e29c13865515a51dbbd6e25f68f5f,
    megatron/core/parallel_state.py: ProcessGroupNCCL.Options config.max_ctas =
    MEGATRON_CORE_{DP,TP,P2P}_MAX_CTAS, default 32; P2P is the pipeline group); the keys the
    config and its sourced files export, empty where none"""
    keys = (("tp", "TP"), ("dp", "DP"), ("pp", "P2P"))
    return " ".join("%s=%s" % (k, e["MEGATRON_CORE_%s_MAX_CTAS" % v]) for k, v in keys if "MEGATRON_CORE_%s_MAX_CTAS" % v in e)
def vp_default(cfg):
    """conf/custom.yaml's INTERLEAVED_PIPELINE default beside the config, else NVIDIA's of the round"""
    for y in (cfg.rsplit("/", 1)[0] + "/conf/custom.yaml", "NVIDIA/benchmarks/gpt3/implementations/nemo/conf/custom.yaml"):
        if y in FILES:
            m = re.search(r"virtual_pipeline_model_parallel_size: \$\{oc.decode:\$\{oc.env:INTERLEAVED_PIPELINE,(\d+)\}\}", show(y))
            if m: return m.group(1), y
    return "", "none found"
def tp_overlap_yaml(cfg, e):
    """The tp_overlap yaml the implementation loads for this config (model.ub_tp_comm_overlap_cfg):
    conf/custom.yaml's `tp_overlap@model.ub_tp_comm_overlap_cfg: ${oc.env:GPU_ARCH,h}100tp..`
    (v3.1+) beside the config, else run_and_time.sh's `model.ub_tp_comm_overlap_cfg=${TP_CONFIG_FILE}`
    (v3.0) with the config_tp_h100.sh it sources (mbs > 1: its first file, else its second); a
    config folder without the implementation (Oracle v4.1: config_*.sh only) takes NVIDIA's of
    the round, every copy of which must agree on the two entries read here."""
    d = cfg.rsplit("/", 1)[0]
    def from_custom(impl):
        y = impl + "/conf/custom.yaml"
        if y not in FILES: return None
        m = re.search(r"tp_overlap@model\.ub_tp_comm_overlap_cfg: (\S+)", show(y))
        if not m: return None
        name = re.sub(r"\$\{oc\.env:([A-Za-z0-9_]+)(?:,([^}]*))?\}", lambda v: e.get(v.group(1), v.group(2) or ""), m.group(1))
        return impl + "/conf/tp_overlap/" + name + ".yaml"
    y = from_custom(d)
    if y: return [y]
    rt = d + "/run_and_time.sh"
    if rt in FILES and "model.ub_tp_comm_overlap_cfg=${TP_CONFIG_FILE}" in show(rt):
        tp = show(d + "/config_tp_h100.sh")
        files = re.findall(r"export TP_CONFIG_FILE='([^']+)'", tp)
        assert "-gt 1 ]; then" in tp and len(files) == 2, tp
        return [d + "/" + files[0 if int(e["MICRO_BATCH_SIZE"]) > 1 else 1]]
    impls = sorted({f.rsplit("/conf/", 1)[0] for f in FILES if f.startswith("NVIDIA/benchmarks/gpt3/implementations/") and f.endswith("/conf/custom.yaml")})
    return [y for y in (from_custom(i) for i in impls) if y in FILES]
def ub_sms(cfg, e):
    """num_sm of the proj_fprop and fc2_fprop entries (the chunked reduce_scatter overlaps), with
    ${oc.decode:${oc.env:VAR,default}} resolved from the config's environment"""
    got = set()
    for y in tp_overlap_yaml(cfg, e):
        text, out = show(y), []
        for op in ("proj_fprop", "fc2_fprop"):
            m = re.search(r"^%s:\n((?:[ \t]+.*\n?)*)" % op, text, re.M)
            v = re.search(r"num_sm: (\S+)", m.group(1)).group(1)
            mm = re.match(r"\$\{oc\.decode:\$\{oc\.env:([A-Za-z0-9_]+),(\d+)\}\}$", v)
            out.append(e.get(mm.group(1), mm.group(2)) if mm else v)
        got.add(tuple(out))
    assert len(got) == 1, (cfg, got)
    return got.pop()
def bucket_cap_mb(cfg, e):
    """Apex distributed_fused_adam's bucket_cap_mb in MiB: the config's BUCKET_CAP_MB, else the
    implementation's default, run_and_time.sh `: "${BUCKET_CAP_MB:=100}"` (v3.0) or
    conf/optim/distributed_fused_adam.yaml `${oc.env:BUCKET_CAP_MB,100}` (v3.1); empty if neither"""
    if "BUCKET_CAP_MB" in e: return e["BUCKET_CAP_MB"]
    d = cfg.rsplit("/", 1)[0]
    for f, pat in ((d + "/run_and_time.sh", r': "\$\{BUCKET_CAP_MB:=(\d+)\}"'),
                   (d + "/conf/optim/distributed_fused_adam.yaml", r"\$\{oc\.env:BUCKET_CAP_MB,(\d+)\}")):
        if f in FILES:
            m = re.search(pat, show(f))
            if m: return m.group(1)
    return ""
# The attention kernel Transformer Engine's DotProductAttention runs for these GPT-3 layers (causal,
# bf16, head dim 128, sm90), by the TE revision the implementation's Dockerfile installs:
# - release_v0.8 (v3.0): transformer_engine/pytorch/transformer.py DotProductAttention,
#   use_flash_attention = NVTE_FLASH_ATTN (default 1) and causal and compute capability >= 8.0:
#   flash-attn 1.x (setup.py "flash-attn>=1.0.2"; flash_attn_unpadded_func, the 1.x API);
# - 09ba8427 / 4ee8e8ec (v3.1, with `pip install flash-attn==2.0.8`): attention.py
#   DotProductAttention.forward returns self.flash_attention(...) before the fused (cuDNN) branch;
# - v1.6rc1 / 9e4091e7 (v4.0) and the NGC 24.09 image's own TE (TE_REVISION=SKIP, v4.1):
#   "Select FusedAttention on sm90 and FlashAttention on others for performance" (attention.py,
#   v1.6rc1 l. 2912): cuDNN.
def attention_of(cfg):
    """TE_ATTENTION of the image beside the config; empty where the folder has no Dockerfile
    (NVIDIA v4.1 b200_n8_preview_nemo): the preset's"""
    te = image_of(cfg)[1]
    return TE_ATTENTION[te] if te else ""
TE_ATTENTION = {"release_v0.8": "flash", "09ba84278a0e5b2eff80239599fbfc5e6beb389f": "flash",
                "4ee8e8ec1dcb9d12ff87a341839de401cb699ddb": "flash", "v1.6rc1": "cudnn",
                "9e4091e742638721f35f67f710815cfb36309831": "cudnn", "SKIP": "cudnn"}
def image_of(cfg):
    """FROM_IMAGE_NAME and TE_REVISION of the Dockerfile beside the config (none: NVIDIA's of the round)"""
    d = cfg.rsplit("/", 1)[0]
    df = d + "/Dockerfile"
    if df not in FILES: return "", ""
    t = show(df)
    img = re.search(r"^ARG FROM_IMAGE_NAME=(\S+)", t, re.M)
    te = re.search(r"^ARG TE_REVISION=(\S+)", t, re.M)
    return (img.group(1) if img else ""), (te.group(1) if te else "")
# The cuDNN of an image whose result logs print none, from the logs of the same image tag: NGC
# PyTorch 24.04 (NVIDIA's v4.1 eos-dfw_n1452_ngc24.04_nemo, its FROM_IMAGE_NAME) prints
# "cudnn_version":"9.1.0.70" in NVIDIA's v4.0 results (eos_n64 / eos-dfw_n1344 / eos-dfw_n1452
# _ngc24.04_nemo result_*.txt, the same FROM_IMAGE_NAME).
IMAGE_CUDNN = {"nvcr.io/nvidia/pytorch:24.04-py3": "9.1.0"}
def cudnn_of_row(cfg, result):
    return cudnn_of(show(result)) or IMAGE_CUDNN.get(image_of(cfg)[0], "")
def cudnn_of(text):
    """the cuDNN the result log prints ("cudnn_version" of its :::SYSJSON system record),
    MAJOR.MINOR.PATCH; empty where the log prints none"""
    got = set(re.findall(r'"cudnn_version":\s*"([0-9.]+)"', text))
    assert len(got) <= 1, got
    return ".".join(got.pop().split(".")[:3]) if got else ""
if IMAGE_COLS:
    src = list(csv.reader(open(sys.argv[3], newline="")))
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(src[0] + ["attention backend (image)", "cuDNN (image)"])
    head = src[0].index("source_ref")
    for row in src[1:]:
        m = re.match(r"github\.com/mlcommons/training_results_(v[0-9.]+) (\S+) \(\+ config (\S+)\) @ ([0-9a-f]{40})$", row[head])
        open_repo(f"{sys.argv[2]}/mlcommons+training_results_{m.group(1)}/repo")
        assert COMMIT == m.group(4), (COMMIT, m.group(4))
        out.writerow(row + [attention_of(m.group(3)), cudnn_of_row(m.group(3), m.group(2))])
    sys.exit(0)
rows = []
for r in sorted(f for f in FILES if f.startswith(f"{ORG}/results/{SYSTEM}/gpt3/result_")):
    ev = [json.loads(l.split(":::MLLOG ", 1)[1]) for l in show(r).splitlines() if ":::MLLOG " in l]
    key = {}
    for x in ev:
        if x["event_type"] == "POINT_IN_TIME" and x["key"] not in key: key[x["key"]] = x["value"]
    gbs, seq = int(key["global_batch_size"]), int(key.get("max_sequence_length", 2048))
    ok = []
    for c in cfgs:
        e = env_of(c, {})
        if not all(k in e for k in ("DGXNNODES", "TENSOR_MODEL_PARALLEL", "PIPELINE_MODEL_PARALLEL", "MINIBS")):
            continue  # a shared fragment (config_shared_dryruns.sh), not a system's config
        n = int(e["DGXNNODES"]) * int(e.get("DGXNGPU", 8))
        dp = n // (int(e["TENSOR_MODEL_PARALLEL"]) * int(e["PIPELINE_MODEL_PARALLEL"]))
        if n == ngpu and dp * int(e["MINIBS"]) == gbs: ok.append((c, e, dp))
    keys = {(e["TENSOR_MODEL_PARALLEL"], e["PIPELINE_MODEL_PARALLEL"], e.get("INTERLEAVED_PIPELINE"), e.get("MICRO_BATCH_SIZE"), e.get("FP8"), e.get("TP_COMM_OVERLAP")) for _, e, _ in ok}
    assert len(keys) == 1, (r, [c for c, _, _ in ok])
    own = [x for x in ok if x[0].split("/")[-2] == x[0].split("/")[-1][7:-3]]  # the folder named after the config
    cfg, e, dp = (own or ok)[0]
    impl = cfg.rsplit("/", 1)[0]
    nsame = len(ok)
    segs, start, tok = [], None, []
    prev_epoch = 0
    for x in ev:
        if x["key"] in ("block_start", "eval_stop") and x["event_type"] != "POINT_IN_TIME":
            if x["key"] == "block_start" and start is not None: continue
            start = x
        elif x["key"] == "eval_start" and start is not None:
            ep = x["metadata"]["epoch_num"]
            segs.append((x["time_ms"] - start["time_ms"], ep - prev_epoch)); prev_epoch = ep; start = None
    toks = sorted({t for _, t in segs})
    assert len(toks) == 1, toks
    steps = toks[0] / (gbs * seq)
    assert abs(steps - round(steps)) < 1e-9
    steps = round(steps)
    tms = [t for t, _ in segs]
    med = statistics.median(tms)
    tst = [x["value"]["train_step_timing in s"] for x in ev if x["key"] == "tracked_stats" and isinstance(x["value"], dict) and "train_step_timing in s" in x["value"]]
    rs = [x["time_ms"] for x in ev if x["key"] in ("run_start", "run_stop")]
    stop = [x for x in ev if x["key"] == "run_stop"][0]["metadata"].get("status")
    ub_proj, ub_fc2 = ub_sms(cfg, e)
    vpd, vpsrc = vp_default(cfg)
    vp = e.get("INTERLEAVED_PIPELINE", vpd)
    mbs = int(e["MICRO_BATCH_SIZE"])
    rows.append({
        "source": f"MLPerf Training {VER} results, {ORG} closed division, GPT-3 175B (mlcommons/training_results_{VER})",
        "source_ref": f"github.com/mlcommons/training_results_{VER} {r} (+ config {cfg}) @ {COMMIT}",
        "table_or_section": f"{r} MLLOG block_start/eval_start/eval_stop events; config {cfg}",
        "model": "GPT-3 175B (MLPerf gpt3 benchmark)", "params_B": "175", "layers": "96", "hidden": "12288",
        "heads": "96", "kv_heads": "", "ffn_hidden": "49152", "seq_len": str(seq), "vocab": "",
        "gpu": f'{sysj["accelerator_model_name"]} ({SYSTEM}; {sysj["accelerators_per_node"]}/node; {sysj.get("accelerator_interconnect", "")}; {sysj.get("host_networking") or sysj.get("accelerator_host_interconnect", "")})',
        "num_gpus": str(ngpu), "tp": e["TENSOR_MODEL_PARALLEL"], "pp": e["PIPELINE_MODEL_PARALLEL"], "cp": "",
        "dp": str(dp), "ep": "", "vp": str(vp), "sharding": "",
        "recompute": "not set in config (yaml default activations_checkpoint_granularity null)",
        "micro_batch": str(mbs), "global_batch": str(gbs),
        "precision": "FP8 (FP8=%s, FP8_HYBRID=%s, FP8_PARAMS=%s; yaml trainer precision bf16)" % (e.get("FP8"), e.get("FP8_HYBRID"), e.get("FP8_PARAMS", "not set")),
        "framework": sysj.get("framework", ""), "TP_COMM_OVERLAP": e.get("TP_COMM_OVERLAP", ""),
        "gradient_accumulation_steps (log)": str(int(float(key.get("gradient_accumulation_steps", 0)))),
        "train segments in log": str(len(segs)),
        "tokens per segment (log eval epoch_num deltas)": str(toks[0]),
        "segment time ms (median)": "%d" % med, "segment time ms (min)": "%d" % min(tms), "segment time ms (max)": "%d" % max(tms),
        "steps per segment (derived)": str(steps),
        "step time s (median segment, derived)": "%.3f" % (med / 1000 / steps),
        "train tokens/s (median segment, derived)": "%d" % (toks[0] / (med / 1000)),
        "train_step_timing s (log tracked_stats, median)": "%.3f" % statistics.median(tst) if tst else "",
        "tracked_stats steps in log": str(len(tst)) if tst else "",
        "run time min (run_start..run_stop)": "%.2f" % ((rs[-1] - rs[0]) / 60000),
        "arch_source": f"the MLPerf GPT-3 175B reference (96 layers, 12288 hidden, 96 heads, ffn 4*hidden) as in {impl}/conf/ yaml defaults",
        "derived_fields": "dp(=num_gpus/(tp*pp)); " + ("" if "INTERLEAVED_PIPELINE" in e else f"vp (INTERLEAVED_PIPELINE not set in the config: {vpsrc} default); ") + "train tokens/s; steps per segment(=tokens/(GBS*seq)); step time s(=median segment time/steps); run time min",
        "notes": f"run_stop status: {stop}; config the one under {ORG}/benchmarks/gpt3/ with the system's {ngpu} GPUs and the logged GBS {gbs} ({nsame} identical copies; the one in the folder named after it taken); system description from {ORG}/systems/{SYSTEM}.json; segment rule as the NVIDIA rows (first: block_start to first eval_start; then eval_stop to next eval_start); log init_checkpoint_step={key.get('init_checkpoint_step')}" + (NOTE and "; " + NOTE),
        "NCCL_SHARP_GROUP_SIZE_THRESH (config_common.sh)": e.get("NCCL_SHARP_GROUP_SIZE_THRESH", ""),
        # session 23: the config's FP8_PARAMS (conf/custom.yaml model.fp8_params), empty where unset
        "FP8_PARAMS (config)": e.get("FP8_PARAMS", ""),
        # session 24: the userbuffers SMs of the tp_overlap yaml the implementation loads
        # (tp_overlap_yaml, ub_sms), as data/validation/mlperf_gpt3.csv's columns
        "ub proj_fprop SMs (config)": ub_proj,
        "ub fc2_fprop SMs (config)": ub_fc2,
        # session 25 (mlpo25): the distributed Adam's bucket (bucket_cap_mb), the attention kernel
        # the image's Transformer Engine picks (TE_ATTENTION) and the cuDNN the log prints
        "BUCKET_CAP_MB (config)": bucket_cap_mb(cfg, e),
        "attention backend (image)": attention_of(cfg),
        "cuDNN (image)": cudnn_of_row(cfg, r),
        # session 25 (cta25): the NCCL per-communicator CTA caps (src/validate/
        # source_mlperf_ctas.c): the yaml NCCL_CFG_PATH names, beside the config
        # (conf/nccl/custom_communicator_cta.yaml), and the environment NCCL applies on top
        "NCCL_CFG_PATH max_ctas (conf/nccl/custom_communicator_cta.yaml)": cta_caps(cfg, e),
        "NCCL_MIN_NCHANNELS (config_common.sh)": e.get("NCCL_MIN_NCHANNELS", ""),
        "NCCL_MAX_CTAS (config_common.sh)": e.get("NCCL_MAX_CTAS", ""),
        "NCCL_MIN_CTAS (config_common.sh)": e.get("NCCL_MIN_CTAS", ""),
        # session 29 (mlpgpt29): the v3.1 configs' caps through Megatron-Core's environment
        # (mcore_caps; src/validate/source_mlperf_ctas.c reads them where NCCL_CFG_PATH is unset)
        "MEGATRON_CORE_*_MAX_CTAS (config_common.sh)": mcore_caps(e),
    })
out = io.StringIO()
w = csv.DictWriter(out, fieldnames=list(rows[0].keys()), lineterminator="\n")
if "--header" in sys.argv: w.writeheader()
w.writerows(rows)
sys.stdout.write(out.getvalue())
