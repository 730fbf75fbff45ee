#!/usr/bin/env python3
"""Regenerate MLPerf Training Llama 3.1 rows (data/validation/mlperf_v5.csv
405B rows of other submitters, data/validation/mlperf_v51_llama8b.csv) from a
git mirror of mlcommons/training_results_v5.x (no work tree needed).

Usage: mlperf-llama-rows.py REPO_GIT_DIR VERSION BENCH [--header] [--per-result]
  REPO_GIT_DIR  e.g. a bare clone of github.com/mlcommons/training_results_v5.1
  VERSION       v5.0 or v5.1 (written into the rows)
  BENCH         llama31_8b or llama31_405b
  --per-result  one row per result_N.txt (as the 405B rows of mlperf_v5.csv);
                default: one row per system, the median over its result files
  --orgs A,B    only these submitters; --skip-orgs A,B: all but these
  --append-to CSV  write CSV back to stdout with the columns of APPEND_COLS
                (added where absent) filled for its rows of this VERSION, from the
                config each row's source_ref names: the columns later sessions
                added to rows written by hand (mlperf_v5.csv rows 1-48) and by
                this script; every other cell as it is

Step time: the median wall-clock interval between consecutive MLLOG
tracked_stats lines carrying train_step_time, divided by the steps between
them (the 8B configs log every LOG_EVERY_N_STEPS=32 steps, config_common_8b.sh;
the 405B ones every step), with no eval/block event between the two lines.

Config: the submission's config_*.sh is found among every config_*.sh under
ORG/benchmarks/ whose DGXNNODES x DGXNGPU is the system's GPU count
(ORG/systems/SYSTEM.json) and whose dp x MINIBS is the logged
global_batch_size; a README in the system's own implementation folder that
sources one, or a config in a folder named after the system, wins. When the
candidates left differ in a setting the loader reads (parallelism, precision,
CUDA graphs, TP overlap) the row is written with precision 'not identified'
and the loader refuses it. Systems with non-NVIDIA accelerators are left out."""
import csv, io, json, re, statistics, subprocess, sys

import mlperf_cta

REPO, VER, BENCH = sys.argv[1], sys.argv[2], sys.argv[3]
HEADER = "--header" in sys.argv
PER_RESULT = "--per-result" in sys.argv
def opt(name):
    return sys.argv[sys.argv.index(name) + 1].split(",") if name in sys.argv else None
ONLY, SKIP = opt("--orgs"), opt("--skip-orgs") or []
COMMIT = subprocess.check_output(["git", "-C", REPO, "rev-parse", "HEAD"], text=True).strip()
FILES = subprocess.check_output(["git", "-C", REPO, "ls-tree", "-r", "--name-only", "HEAD"],
                                text=True).split("\n")
FILESET = set(FILES)
def show(p): return subprocess.check_output(["git", "-C", REPO, "show", f"HEAD:{p}"], text=True)

def fallback(path, name):
    org = path.split("/")[0]
    for o in (org, "NVIDIA"):
        hit = sorted(f for f in FILES if f.endswith("/" + name) and f.startswith(f"{o}/benchmarks/")
                     and any(f"/benchmarks/{b}/" in f for b in BENCH_DIRS[BENCH]))
        if hit: return hit[0]
    return None

def cta_caps(cfg, e):
    """'tp=8 cp=1 dp=8 dp_cp=8 pp=2': max_ctas per group of the communicator yaml
    NCCL_CFG_PATH names (empty where it is unset or no yaml is found)."""
    if not cfg or not e.get("NCCL_CFG_PATH"):
        return ""
    name = "conf/nccl/custom_communicator_cta.yaml"
    p = cfg.rsplit("/", 1)[0] + "/" + name
    p = p if p in FILESET else fallback(p, name)
    if not p:
        return ""
    return mlperf_cta.caps_of(show(p))

def yaml_env_default(cfg, var):
    """The default conf/custom.yaml gives env variable var where the config
    leaves it unset: its `${oc.env:VAR,DEFAULT}` (the yaml next to the config,
    found as a sourced file is); None where there is no yaml or no such entry.
    TP_COMM_OVERLAP: model.ub_tp_comm_overlap: ${oc.decode:${oc.env:TP_COMM_OVERLAP,False}}
    in every llama31_405b implementation of v5.0 and v5.1 and most 8B ones (Cisco's 8B: True)."""
    if not cfg:
        return None
    name = "conf/custom.yaml"
    p = cfg.rsplit("/", 1)[0] + "/" + name
    p = p if p in FILESET else fallback(p, name)
    if not p:
        return None
    m = re.search(r"\$\{oc\.env:%s,([^}]*)\}" % re.escape(var), show(p))
    return (m.group(1).strip(), p) if m else None

def pretrain_of(cfg):
    """The text of the pretrain.py beside the config (found as a sourced file is), or None."""
    if not cfg:
        return None
    p = cfg.rsplit("/", 1)[0] + "/pretrain.py"
    p = p if p in FILESET else fallback(p, "pretrain.py")
    return show(p) if p else None

def fp8_param_gather_8b(cfg, e):
    """The environment variable the implementation's DDP fp8_param_gather comes from: pretrain.py
    `fp8_param_gather = config.model.optim.fp8_params` (Cisco's 8B, the ngc25.01-era code, whose
    conf/custom.yaml reads optim.fp8_params from FP8_PARAMS), else FP8_PARAM_GATHER
    (`config.model.optim.fp8_param_gather`, NVIDIA's v5.1 implementation and the others')."""
    pre = pretrain_of(cfg)
    if pre and re.search(r"fp8_param_gather = config\.model\.optim\.fp8_params\b", pre):
        return e.get("FP8_PARAMS", "")
    return e.get("FP8_PARAM_GATHER", "")

def ub_fprop_margins(cfg, e, lay):
    """('proj', 'fc2'): the SMs Transformer Engine's userbuffers take from the forward proj and fc2
    GEMMs (the chunked reduce_scatter overlaps proj_fprop, fc2_fprop), as the NeMo 2 pretrain.py of
    the 8B implementations builds them; ('', '') where userbuffers are off (TP_COMM_OVERLAP not
    True, or tp 1) or no tp_overlap yaml is found (the preset's then).
    - The yaml: conf/custom.yaml `- optional tp_overlap@model.ub_tp_comm_overlap_cfg:
      ${oc.env:GPU_ARCH,h100}tp${oc.env:TENSOR_MODEL_PARALLEL}mbs${oc.env:MICRO_BATCH_SIZE}`
      (Cisco's: `${oc.env:GPU_ARCH,h}100...`), resolved from the config's environment (NVIDIA's
      config_common.sh exports GPU_ARCH=gb200, for its GB300 configs too).
    - pretrain.py get_overlap_callback: method "pipeline" -> PipelineOverlapCfg(num_sm=...,
      set_sm_margin=bool(attributes.set_sm_margin)); method "ring_exchange" ->
      RingExchangeOverlapCfg(fp8_buf=fp8_buf) only, whose dataclass defaults are num_sm=1,
      set_sm_margin=False (NeMo 25.09-alpha and v2.4.0 nemo/collections/llm/recipes/
      tp_overlap_configs/userbuffers.py): the yaml's num_sm and set_sm_margin of a ring_exchange
      entry are dropped.
    - TE (release_v2.8) initialize_ub updates its defaults with these entries and
      comm_gemm_overlap.cpp CommOverlapCore::initialize sets
      _math_sms = set_sm_margin ? sm_count - num_comm_sm : sm_count.
    So the margin is num_sm for a pipeline entry with set_sm_margin, else 0."""
    if not cfg or e.get("TP_COMM_OVERLAP", "") != "True" or not lay or lay["tp"] <= 1:
        return ("", "")
    d = cfg.rsplit("/", 1)[0]
    # Cisco's pretrain.py hands MegatronCommOverlapCallback a hard-coded
    # tp_comm_overlap_cfg=TransformerLayerTPOverlapCfg(... proj_fprop=PipelineOverlapCfg(num_sm=24,
    # ..., set_sm_margin=True), fc2_fprop=PipelineOverlapCfg(num_sm=8, ...)) and leaves the yaml's
    # userbuffer_config unused: that one holds where present
    pre = pretrain_of(cfg)
    m = re.search(r"tp_comm_overlap_cfg=TransformerLayerTPOverlapCfg\((.*?)\n\s*\),", pre, re.S) if pre else None
    if m:
        out = []
        for op in ("proj_fprop", "fc2_fprop"):
            mm = re.search(r"%s=(\w+)\(([^)]*)\)" % op, m.group(1))
            if not mm:
                return ("", "")
            args = dict(re.findall(r"(\w+)=(\w+)", mm.group(2)))
            if mm.group(1) == "RingExchangeOverlapCfg":
                margin = args.get("num_sm", "1") if args.get("set_sm_margin") == "True" else "0"
            elif mm.group(1) == "PipelineOverlapCfg":
                margin = args["num_sm"] if args.get("set_sm_margin") == "True" else "0"
            else:
                return ("", "")
            out.append(margin)
        return tuple(out)
    cy = d + "/conf/custom.yaml"
    cy = cy if cy in FILESET else fallback(cy, "conf/custom.yaml")
    if not cy:
        return ("", "")
    m = re.search(r"tp_overlap@model\.ub_tp_comm_overlap_cfg: (\S+)", show(cy))
    if not m:
        return ("", "")
    env = dict(e)
    env.setdefault("TENSOR_MODEL_PARALLEL", str(lay["tp"]))
    env.setdefault("MICRO_BATCH_SIZE", str(lay["mbs"]))
    name = re.sub(r"\$\{oc\.env:([A-Za-z0-9_]+)(?:,([^}]*))?\}",
                  lambda v: env.get(v.group(1), v.group(2) or ""), m.group(1))
    y = cy.rsplit("/conf/", 1)[0] + "/conf/tp_overlap/" + name + ".yaml"
    if y not in FILESET:
        return ("", "")
    text = show(y)
    def val(block, key, default):
        mm = re.search(r"^\s+%s:\s*(\S+)" % key, block, re.M)
        if not mm: return default
        v = mm.group(1)
        dd = re.match(r"\$\{oc\.decode:\$\{oc\.env:([A-Za-z0-9_]+),([^}]*)\}\}$", v)
        return env.get(dd.group(1), dd.group(2)) if dd else v
    out = []
    for op in ("proj_fprop", "fc2_fprop"):
        mm = re.search(r"^%s:\n((?:[ \t]+.*\n?)*)" % op, text, re.M)
        if not mm:
            return ("", "")
        method = val(mm.group(1), "method", "")
        if method == "ring_exchange":
            out.append("0")
        elif method == "pipeline":
            out.append(val(mm.group(1), "num_sm", "") if val(mm.group(1), "set_sm_margin", "0") not in ("0", "False", "false") else "0")
        else:
            return ("", "")
    return tuple(out)

def yaml_env_value(cfg, e, key):
    """The value conf/custom.yaml gives `key:` from the config's environment
    (`${oc.decode:${oc.env:VAR,DEFAULT}}` or `${oc.env:VAR,DEFAULT}`), or None."""
    name = "conf/custom.yaml"
    p = cfg.rsplit("/", 1)[0] + "/" + name
    p = p if p in FILESET else fallback(p, name)
    if not p:
        return None
    m = re.search(r"^\s*%s:\s*\$\{(?:oc\.decode:)?\$\{oc\.env:([A-Za-z0-9_]+),([^}]*)\}\}?\s*$" % re.escape(key),
                  show(p), re.M)
    return e.get(m.group(1), m.group(2).strip()) if m else None

def nan_check_of(cfg, e):
    """Megatron-Core DDP's check_for_nan_in_grad as the implementation's pretrain.py get_strategy
    passes it to DistributedDataParallelConfig: 'True' / 'False' (session 28, mlperfcfg28), '' where
    no pretrain.py or no such argument is found.
    - A literal (v5.1 @ 441d65f4: False in NVIDIA's 8B and 405B and every other 8B submitter's but
      Cisco's, l. 389; True in Cisco's 8B l. 355 and Nebius' 405B l. 354; v5.0 @ 0fdc28f ngc25.01
      eos-dfw and Nebius: True, l. 354);
    - `not config.model.full_cuda_graph` (v5.0 ngc25.04 tyche, carina l. 345): conf/custom.yaml
      full_cuda_graph ${oc.decode:${oc.env:FULL_CUDA_GRAPH,False}}, OmegaConf's decode making
      'True' / '1' true.
    Off, start_grad_sync skips check_grads (Megatron-LM 25.04-alpha.rc1 / 25.09-alpha.rc1
    param_and_grad_buffer.py), whose per-bucket grad_data.norm(p=2) reads the gradient buffer."""
    pre = pretrain_of(cfg)
    m = re.search(r"check_for_nan_in_grad=([^,\n]+),", pre) if pre else None
    if not m:
        return ""
    v = m.group(1).strip()
    if v in ("True", "False"):
        return v
    if v == "not config.model.full_cuda_graph":
        fcg = yaml_env_value(cfg, e, "full_cuda_graph")
        if fcg is None:
            return ""
        return "False" if fcg.strip() in ("True", "true", "1") else "True"
    return ""

def env_of(path, e=None, depth=0):
    """The exports of a config, its `source $(dirname ...)/x.sh` files inlined in order."""
    e = {} if e is None else e
    d = path.rsplit("/", 1)[0]
    for line in show(path).splitlines():
        line = line.split("#", 1)[0] if not line.lstrip().startswith("export DGXSYSTEM") else line
        m = re.match(r'\s*source \$\(dirname \$\{BASH_SOURCE\[0\]\}\)/(\S+)', line)
        if m:
            p = f"{d}/{m.group(1)}"
            if p not in FILESET:  # absent here: the submitter's own file of that name
                alt = fallback(p, m.group(1))  # elsewhere for this benchmark, else NVIDIA's
                e.setdefault("__missing", []).append(m.group(1) + (" -> " + alt if alt else ""))
                p = alt
            if p and depth < 4: env_of(p, e, depth + 1)
            continue
        m = re.match(r'\s*export\s+([A-Za-z0-9_]+)=("?)([^"\s]*)\2', line)
        if m: e[m.group(1)] = m.group(3); continue
        m = re.match(r'\s*:\s*"\$\{([A-Za-z0-9_]+):=([^}]*)\}"', line)
        if m: e.setdefault(m.group(1), m.group(2)); continue
        m = re.match(r'\s*unset\s+([A-Za-z0-9_]+)', line)
        if m: e.pop(m.group(1), None)
    return e

def layout(e):
    try:
        nodes, gpn = int(e["DGXNNODES"]), int(e.get("DGXNGPU", 8))
        tp, pp, cp = (int(e["TENSOR_MODEL_PARALLEL"]), int(e["PIPELINE_MODEL_PARALLEL"]),
                      int(e["CONTEXT_PARALLEL"]))
        minibs, mbs = int(e["MINIBS"]), int(e["MICRO_BATCH_SIZE"])
    except (KeyError, ValueError):
        return None
    vp = e.get("INTERLEAVED_PIPELINE", "null")
    vp = int(vp) if vp.isdigit() else 1
    ngpu = nodes * gpn
    if ngpu % (tp * pp * cp): return None
    dp = ngpu // (tp * pp * cp)
    return dict(nodes=nodes, gpn=gpn, ngpu=ngpu, tp=tp, pp=pp, cp=cp, vp=vp, dp=dp, mbs=mbs,
                gbs=dp * minibs)

def precision(e):
    if e.get("FP4") == "True":
        return "NVFP4 (FP4=True, FP4_RECIPE=%s, NVTE_NVFP4_DISABLE_RHT=%s, NVTE_DPA_FP8_RECIPE=%s)" % (
            e.get("FP4_RECIPE"), e.get("NVTE_NVFP4_DISABLE_RHT", "not set"),
            e.get("NVTE_DPA_FP8_RECIPE", "not set"))
    if e.get("FP8") == "True":
        return "FP8 (FP8=True, FP8_RECIPE=%s, FP8_HYBRID=%s, FP8_PARAMS=%s, FP8_PARAM_GATHER=%s, FP8_DPA=%s)" % (
            e.get("FP8_RECIPE", "not set"), e.get("FP8_HYBRID", "not set"),
            e.get("FP8_PARAMS", "not set"), e.get("FP8_PARAM_GATHER", "not set"),
            e.get("FP8_DPA", "not set"))
    return "BF16 (FP8 and FP4 not True)"

def key_settings(e, lay):
    return (lay["tp"], lay["pp"], lay["cp"], lay["vp"], lay["mbs"], precision(e).split(" ")[0],
            e.get("FULL_CUDA_GRAPH", "not set"), e.get("TP_COMM_OVERLAP", ""))

BENCH_DIRS = {"llama31_8b": ("llama31_8b", "llama3_8b"), "llama31_405b": ("llama31_405b",)}
CFG_RE = re.compile(r"/config_(?!common)(?!mounts)(?!hpg)[^/]*\.sh$")

def find_config(org, system, ngpu, gbs, nodes):
    cands = [f for f in FILES if f.startswith(f"{org}/benchmarks/") and CFG_RE.search(f)
             and any(f"/benchmarks/{b}/" in f for b in BENCH_DIRS[BENCH])]
    ok = []
    for f in cands:
        e = env_of(f)
        if BENCH == "llama31_8b" and e.get("MODEL_SIZE") != "8b": continue
        if BENCH == "llama31_405b" and e.get("MODEL_SIZE", "405b") != "405b": continue
        lay = layout(e)
        if lay and lay["ngpu"] == ngpu and lay["gbs"] == gbs:
            ok.append((f, e, lay))
    same = [x for x in ok if x[2]["nodes"] == nodes]  # the system's own node shape first
    if same: ok = same
    if not ok:
        return None, f"no config_*.sh under {org}/benchmarks/ has {ngpu} GPUs and global batch {gbs}"
    # a README of the system's own implementation folder naming the config
    for rd in [f for f in FILES if f.startswith(f"{org}/benchmarks/") and f"/{system}/" in f
               and re.search(r"/README[^/]*\.md$", f)]:
        for m in re.finditer(r"^source (config_\S+\.sh)", show(rd), re.M):
            hit = [x for x in ok if x[0].endswith("/" + m.group(1))]
            if len(hit) >= 1:
                return hit[0], f"named by {rd}"
    # a config named after the system (Dell, Supermicro: config_<system>_*.sh,
    # the system's leading "<nodes>x" dropped), else one in a folder named
    # after it (or its prefix: University of Florida's hpg.dgxb200x8 for hpg.dgxb200x8.n4)
    bare = re.sub(r"^\d+x", "", system)
    own = [x for x in ok if "/config_" + bare in x[0] or "/config_" + system in x[0]]
    if not own:
        own = [x for x in ok if system.startswith(x[0].split("/")[-2])]
    if own: ok = own
    how = "the only matching config" if len(ok) == 1 else None
    if how is None:
        ks = {key_settings(x[1], x[2]) for x in ok}
        if len(ks) == 1:
            how = "%d matching configs, same modelled settings" % len(ok)
        else:
            return ok, "ambiguous: " + "; ".join(sorted(x[0].rsplit("/", 1)[1] for x in ok))
    return ok[0], how + (" (in the system's folder)" if own else "")

def step_intervals(ev, gbs):
    smp = lambda x: x["metadata"].get("samples_count", x["metadata"].get("step"))
    iv, prev = [], None
    for x in ev:
        if x["key"] == "tracked_stats" and isinstance(x["value"], dict) and "train_step_time" in x["value"]:
            if prev is not None and smp(x) is not None and smp(prev) is not None:
                n = (smp(x) - smp(prev)) / gbs
                if n >= 1 and abs(n - round(n)) < 1e-9:
                    iv.append((x["time_ms"] - prev["time_ms"]) / round(n))
            prev = x
        elif x["key"].startswith("eval") or x["key"].startswith("block"):
            prev = None
    return iv

def read_result(path):
    ev = []
    for line in show(path).splitlines():
        if ":::MLLOG " in line:
            try: ev.append(json.loads(line.split(":::MLLOG ", 1)[1]))
            except json.JSONDecodeError: pass
    key = {}
    for x in ev:
        if x["event_type"] == "POINT_IN_TIME" and x["key"] not in key: key[x["key"]] = x["value"]
    return ev, key

# The columns read from each row's config and pretrain.py, appended last: the 8B file's
# Transformer Engine userbuffers margins (ub_fprop_margins, session 28 uf28) and, in both
# files, Megatron-Core DDP's check_for_nan_in_grad (nan_check_of, session 28 mlperfcfg28).
# The 405B rows' margins are not written (mlperfcfg28): their v5.0 yamls give 0 for a
# ring_exchange entry (TE use_ce: the reduce_scatter on copy engines), which plateau's
# ub_mode (src/sim/lower_unit.c) would take for SM reduce_scatter kernels beside the GEMM
UB_COLS = ("ub proj_fprop SMs (config)", "ub fc2_fprop SMs (config)")
NAN_COL = "check_for_nan_in_grad (pretrain.py)"
APPEND_COLS = (UB_COLS if BENCH == "llama31_8b" else ()) + (NAN_COL,)

def append_cols(cfg, e):
    out = {NAN_COL: nan_check_of(cfg, e)}
    if BENCH == "llama31_8b":
        lay = layout(e)
        out.update(zip(UB_COLS, ub_fprop_margins(cfg, e, lay) if lay else ("", "")))
    return {c: out[c] for c in APPEND_COLS}

if "--append-to" in sys.argv:
    src = list(csv.reader(open(sys.argv[sys.argv.index("--append-to") + 1], newline="")))
    head, body = src[0], src[1:]
    for c in APPEND_COLS:
        if c not in head:
            head.append(c)
            for r in body: r.append("")
    for r in body:
        ref = r[head.index("source_ref")]
        m = re.search(r"\(\+ config (\S+)\)", ref)
        if not ref.startswith(f"github.com/mlcommons/training_results_{VER} ") or not m:
            continue
        if r[head.index("precision")].startswith("not identified"):  # ambiguous config: as
            for c in APPEND_COLS: r[head.index(c)] = ""  # the rows the script writes
            continue
        cfg = m.group(1)
        if cfg not in FILESET:
            sys.exit(f"{cfg}: not in the mirror at {COMMIT}")
        for c, v in append_cols(cfg, env_of(cfg)).items():
            r[head.index(c)] = v
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([head] + body)
    sys.stdout.write(out.getvalue())
    sys.exit(0)

systems = sorted({(p.split("/")[0], p.split("/")[2]) for p in FILES
                  if re.match(rf"[^/]+/results/[^/]+/{BENCH}/result_\d+\.txt$", p)})
rows = []
for org, system in systems:
    if (ONLY and org not in ONLY) or org in SKIP: continue
    sysj = json.loads(show(f"{org}/systems/{system}.json"))
    acc = sysj["accelerator_model_name"]
    if "NVIDIA" not in acc: continue
    ngpu = int(sysj["number_of_nodes"]) * int(sysj["accelerators_per_node"])
    results = sorted((p for p in FILES if p.startswith(f"{org}/results/{system}/{BENCH}/result_")),
                     key=lambda p: int(re.search(r"result_(\d+)", p).group(1)))
    per = []
    for r in results:
        ev, key = read_result(r)
        gbs = int(key["global_batch_size"])
        iv = step_intervals(ev, gbs)
        stop = [x for x in ev if x["key"] == "run_stop"]
        rs = [x["time_ms"] for x in ev if x["key"] in ("run_start", "run_stop")]
        tst = [x["value"]["train_step_time"] for x in ev if x["key"] == "tracked_stats"
               and isinstance(x["value"], dict) and "train_step_time" in x["value"]]
        per.append(dict(r=r, gbs=gbs, seq=int(key["max_sequence_length"]),
                        ga=key.get("gradient_accumulation_steps"), iv=iv, tst=tst,
                        status=stop[0]["metadata"].get("status") if stop else "no run_stop",
                        run_min=(rs[-1] - rs[0]) / 60000 if len(rs) >= 2 else float("nan"),
                        init_step=key.get("init_checkpoint_step")))
    gbs = per[0]["gbs"]
    assert all(p["gbs"] == gbs for p in per), (system, [p["gbs"] for p in per])
    found, how = find_config(org, system, ngpu, gbs, int(sysj["number_of_nodes"]))
    ambiguous = isinstance(found, list)
    cfg, e, lay = (found[0] if ambiguous else found) if found else (None, {}, None)
    groups = [[p] for p in per] if PER_RESULT else [per]
    for g in groups:
        iv_med = [statistics.median(p["iv"]) for p in g if p["iv"]]
        if not iv_med: continue
        step = statistics.median(iv_med)
        gpu = f'{acc} ({system}; {sysj["accelerators_per_node"]}/node; {sysj.get("accelerator_interconnect", "")}; {sysj.get("host_networking", "")})'
        seg = ""
        if cfg:
            sl = [l for l in show(cfg).splitlines() if l.startswith("export SEGMENT=")]
            if sl:
                v = sl[-1].split("=", 1)[1].strip()
                seg = v if v.isdigit() else ""
        prec = precision(e) if cfg and not ambiguous else "not identified (%s)" % how
        ub_default = yaml_env_default(cfg, "TP_COMM_OVERLAP") if cfg and not ambiguous else None
        modelname = ("Llama 3.1 8B (MLPerf llama31_8b benchmark)" if BENCH == "llama31_8b"
                     else "Llama 3.1 405B (MLPerf llama31_405b benchmark)")
        dims = (("8", "32", "4096", "32", "8", "14336") if BENCH == "llama31_8b"
                else ("405", "126", "16384", "128", "8", "53248"))
        rlist = ", ".join(p["r"].rsplit("/", 1)[1] for p in g)
        row = {
            "source": f"MLPerf Training {VER} results, {org} closed division, " +
                      ("Llama 3.1 8B" if BENCH == "llama31_8b" else "Llama 3.1 405B") +
                      f" (mlcommons/training_results_{VER})",
            "source_ref": f"github.com/mlcommons/training_results_{VER} {org}/results/{system}/{BENCH}/{rlist if len(g) == 1 else 'result_*.txt'} (+ config {cfg or 'not identified'}) @ {COMMIT}",
            "table_or_section": f"{org}/results/{system}/{BENCH}/ ({rlist}) MLLOG tracked_stats events; config {cfg or 'not identified'}",
            "model": modelname,
            "params_B": dims[0], "layers": dims[1], "hidden": dims[2], "heads": dims[3],
            "kv_heads": dims[4], "ffn_hidden": dims[5], "seq_len": str(g[0]["seq"]), "vocab": "128256",
            "gpu": gpu, "num_gpus": str(ngpu),
            "tp": str(lay["tp"]) if lay else "", "pp": str(lay["pp"]) if lay else "",
            "cp": str(lay["cp"]) if lay else "", "dp": str(lay["dp"]) if lay else "", "ep": "",
            "vp": str(lay["vp"]) if lay else "",
            "sharding": "distributed optimizer (USE_DIST_OPTIMIZER=%s)" % e.get("USE_DIST_OPTIMIZER"),
            "recompute": "none (ACT_CKPT_GRANULARITY not set: conf/custom.yaml activations_checkpoint_granularity null)"
                         if "ACT_CKPT_GRANULARITY" not in e else "ACT_CKPT_GRANULARITY=%s" % e["ACT_CKPT_GRANULARITY"],
            "micro_batch": str(lay["mbs"]) if lay else "", "global_batch": str(gbs),
            "precision": prec,
            "framework": "NVIDIA NeMo Framework (%s)" % sysj.get("framework", ""),
            # unset in the config (University of Florida's B200 405B configs comment it
            # out: "#export TP_COMM_OVERLAP=True"): the implementation's yaml default
            "TP_COMM_OVERLAP": e.get("TP_COMM_OVERLAP", (ub_default or ("",))[0]),
            "gradient_accumulation_steps (log)": "%d" % int(float(g[0]["ga"])) if g[0]["ga"] is not None else "",
            "step time s (median log interval, derived)": "%.4f" % (step / 1000),
            "log intervals counted": str(sum(len(p["iv"]) for p in g)),
            "step time s (median segment, derived)": "",
            "train segments in log (block_start..eval_start)": "",
            "train_step_time s (log tracked_stats, median)": "%.4f" % statistics.median(
                [statistics.median(p["tst"]) for p in g if p["tst"]]),
            "tracked_stats steps in log": str(sum(len(p["tst"]) for p in g)),
            "run time min (run_start..run_stop)": "%.2f" % statistics.median([p["run_min"] for p in g]),
            "ASYM_PP_EMBED (config)": e.get("ASYM_PP_EMBED", ""),
            "ASYM_PP_LOSS (config)": e.get("ASYM_PP_LOSS", ""),
            "CUDA graphs (config)": "FULL_CUDA_GRAPH=%s" % e.get("FULL_CUDA_GRAPH", "not set"),
            "NCCL_SHARP_GROUP_SIZE_THRESH (config_common.sh)": e.get("NCCL_SHARP_GROUP_SIZE_THRESH", ""),
            "notes": "run_stop status: %s;%s config %s%s; system description from %s/systems/%s.json; "
                     "step time = median over %s of each file's median wall-clock interval between "
                     "consecutive tracked_stats lines (train_step_time) divided by the steps between them, "
                     "no eval/block event between them; NCCL_NVLS_ENABLE=%s; MCORE_CUDA_GRAPH=%s; "
                     "BUCKET_SIZE=%s; CE_FUSION_IMPL=%s; USE_TE_OPS=%s; NVTE_DPA_FP8_RECIPE=%s" % (
                         ",".join(sorted({p["status"] for p in g})),
                         (" SEGMENT=%s (config: Slurm --segment);" % seg) if seg else "",
                         cfg or "not identified", how and (" (%s)" % how) or "",
                         org, system, ("%d result files" % len(g)) if len(g) > 1 else "the file",
                         e.get("NCCL_NVLS_ENABLE"), e.get("MCORE_CUDA_GRAPH", "not set"),
                         e.get("BUCKET_SIZE", "not set"), e.get("CE_FUSION_IMPL", "not set"),
                         e.get("USE_TE_OPS", "not set"), e.get("NVTE_DPA_FP8_RECIPE", "not set")),
        }
        if "TP_COMM_OVERLAP" not in e and ub_default:
            row["notes"] += ("; TP_COMM_OVERLAP not set in the config: %s's default "
                             "ub_tp_comm_overlap ${oc.env:TP_COMM_OVERLAP,%s}" % (ub_default[1], ub_default[0]))
        if e.get("__missing"):
            row["notes"] += "; sourced but absent: " + ", ".join(e["__missing"])
        if BENCH == "llama31_8b":  # a column of the 8B file only (appended last)
            row["BUCKET_SIZE (config, parameters)"] = e.get("BUCKET_SIZE", "")
            # Megatron-Core fp8_param_gather (conf/custom.yaml model.fp8_param_gather)
            # session 28 (uf28): from FP8_PARAMS where the implementation's pretrain.py reads
            # optim.fp8_params (Cisco), as the 405B branch below
            row["FP8_PARAM_GATHER (config)"] = fp8_param_gather_8b(cfg, e)
        else:  # 405B (session 23): the DDP fp8_param_gather pretrain.py passes; the v5.0 ngc25.01
            # implementations' pretrain.py reads it from FP8_PARAMS (fp8_param_gather =
            # config.model.optim.fp8_params), the later ones from FP8_PARAM_GATHER
            row["FP8_PARAM_GATHER (config)"] = e.get("FP8_PARAM_GATHER", e.get("FP8_PARAMS", ""))
        # session 25 (cta25): the NCCL per-communicator CTA caps (loader
        # src/validate/source_mlperf_ctas.c): the max_ctas of the yaml NCCL_CFG_PATH
        # names (conf/nccl/custom_communicator_cta.yaml, found as a sourced file is),
        # and the two environment variables NCCL's rules apply on top
        row["NCCL_CFG_PATH max_ctas (conf/nccl/custom_communicator_cta.yaml)"] = cta_caps(cfg, e)
        row["NCCL_MIN_NCHANNELS (config_common.sh)"] = e.get("NCCL_MIN_NCHANNELS", "")
        row["NCCL_MAX_CTAS (config_common.sh)"] = e.get("NCCL_MAX_CTAS", "")
        row["NCCL_MIN_CTAS (config_common.sh)"] = e.get("NCCL_MIN_CTAS", "")
        # session 28 (uf28: the ub columns of the 8B file; mlperfcfg28: both files, and
        # check_for_nan_in_grad): appended last
        row.update(append_cols(cfg, e) if cfg and not ambiguous else dict.fromkeys(APPEND_COLS, ""))
        rows.append(row)
out = io.StringIO()
w = csv.DictWriter(out, fieldnames=list(rows[0].keys()), lineterminator="\n")
if HEADER: w.writeheader()
w.writerows(rows)
sys.stdout.write(out.getvalue())
