"""The per-communicator NCCL CTA caps of an MLPerf implementation's conf/nccl/custom_communicator_cta.yaml
(Megatron-Core --nccl-communicator-config-path; parallel_state.py get_nccl_options), shared by
mlperf-gpt3-rows.py and mlperf-llama-rows.py."""
import re

GROUPS = ("tp", "cp", "dp", "dp_cp", "pp")


def caps_of(text):
    """'tp=8 cp=1 dp=8 dp_cp=8 pp=2': each group's max_ctas in the yaml text, in GROUPS order"""
    caps, key = {}, None
    for line in text.splitlines():
        m = re.match(r"^(\w+):\s*$", line)
        if m:
            key = m.group(1)
            continue
        m = re.match(r"^\s+max_ctas:\s*(\d+)", line)
        if m and key in GROUPS:
            caps[key] = m.group(1)
    return " ".join("%s=%s" % (k, caps[k]) for k in GROUPS if k in caps)
