/* hw.h: GPUs and clusters. Every number comes from a data file that names its
 * source (data/gpus/NAME.json, data/clusters/NAME.json); nothing here is a constant.
 *
 * Bandwidths are per GPU (or per NIC) and per direction, in bytes per second:
 * NVIDIA's "900 GB/s NVLink" for H100 is both directions, 450 GB/s each way.
 * Ownership: the structs are plain values owned by the caller. */
#ifndef PLATEAU_HW_H
#define PLATEAU_HW_H

#include <stdbool.h>
#include <stdint.h>
#include "status.h"

/* Training dtypes of the GEMMs. FP8: per-tensor scaled E4M3/E5M2 (Transformer
 * Engine's delayed/current scaling, Hopper and later). MXFP8: OCP Microscaling
 * FP8, one E8M0 scale per 32 elements (OCP Microscaling Formats (MX) v1.0
 * spec, 2023; Transformer Engine MXFP8BlockScaling, Blackwell only). NVFP4:
 * E2M1 with one E4M3 scale per 16 elements and a per-tensor FP32 scale
 * (NVIDIA technical blog "Introducing NVFP4 for Efficient and Accurate
 * Low-Precision Inference", 2025; Transformer Engine NVFP4BlockScaling,
 * Blackwell only). New values are appended, never renumbered. */
enum pl_dtype { PL_DTYPE_BF16, PL_DTYPE_FP8, PL_DTYPE_MXFP8, PL_DTYPE_NVFP4 };
#define PL_DTYPE_COUNT 4

/* The Mamba-2 mixer's Triton kernels (mamba_ssm) as plateau's ops split them
 * (src/model/mamba.c; ops/triton/ssd_combined.py, layernorm_gated.py): the
 * SSD's cumsum and state passing (with the backward's ATen reductions), its
 * chunk states, C B^T products and chunk scan, the mixer's RMSNorm and the
 * gate y silu(z) Megatron-Core's call puts in the scan. The
 * GPU file names each part by its op name. New values are appended, never
 * renumbered. */
enum pl_ssd_kernel {
  PL_SSD_STATES,
  PL_SSD_CHUNK_STATE,
  PL_SSD_BMM_CB,
  PL_SSD_CHUNK_SCAN,
  PL_SSD_NORM,
  PL_SSD_GATE
};
#define PL_SSD_KERNELS 6

/* An attention kernel's rate by shape as one cuDNN release ran it (docs/step-model.md
 * 2.2 "cuDNN by version"): the GPU file's attention.cudnn.shape_<major>_<minor>
 * (shape_2024: cuDNN 9.0-9.1), the same four numbers as attention.cudnn.shape.
 * cudnn_from / cudnn_through: the oldest and newest cuDNN the entry stands for, as
 * version codes (PL_CUDNN_VERSION_*; shape_9_13 -> 91300 / 91399, every 9.13.x;
 * shape_2024 -> 90000 / 90199). */
struct pl_attn_cudnn_shape {
  int64_t cudnn_from;
  int64_t cudnn_through;
  double fwd_fraction; /* large-shape asymptote of the forward / peak */
  double bwd_fraction;
  double fwd_tile_fixed_keys; /* each query tile's fixed cost, in key positions */
  double bwd_tile_fixed_keys;
};
#define PL_ATTN_CUDNN_VERSIONS_MAX 8

/* How close real kernels get to one GPU type's datasheet peaks, and how it
 * draws power: the "efficiency" object of its GPU file, every number with its
 * source (read by src/hw/gpu_efficiency.c, used by the step model in src/sim;
 * docs/step-model.md). present is false when the file has no such object. */
struct pl_gpu_efficiency {
  bool present;
  double gemm_mamf_flops_per_s;  /* best measured dense BF16 GEMM rate (MAMF) */
  int64_t gemm_mamf_shape[3];    /* the m, n, k it was measured at */
  double gemm_fp8_mamf_flops_per_s; /* same for FP8, 0 = scale BF16 by the peak ratio */
  int64_t gemm_fp8_mamf_shape[3];
  double gemm_mxfp8_vs_fp8;      /* measured MXFP8 / FP8 (tensor-scaled) GEMM rate at the same
                                    shapes; 0 = not given, the ratio of the datasheet peaks */
  double gemm_nvfp4_vs_fp8;      /* the same for NVFP4 */
  int64_t gemm_tile_m;           /* output tile of the GEMM kernels, rows */
  int64_t gemm_tile_n;           /* output tile, columns */
  int64_t gemm_tile_alt_bf16_m;  /* a second tile the BF16 kernels choose from (gemm.tile_alt_bf16,
                                    cuBLAS's 128x192 on sm90), tried with its transpose beside
                                    the tile above; 0 = not given (the tile above only) */
  int64_t gemm_tile_alt_bf16_n;
  double gemm_sustained_fraction; /* sustained (power-limited) / burst GEMM rate; 0 = not given,
                                    the burst MAMF is used as is */
  double gemm_sustained_fraction_fp8; /* the same for FP8 GEMMs (and the block-scaled ones rated
                                    from the FP8 measurement), against this file's FP8 rate
                                    (gemm.sustained_fraction_fp8); 0 = not given, FP8 takes
                                    gemm_sustained_fraction */
  double gemm_tile_fixed_k;      /* per-tile cost outside the K loop (prologue, epilogue), in
                                    K elements of BF16 mainloop; 0 = not given (none) */
  double gemm_tile_fixed_k_fp8;  /* the same for FP8 GEMMs (and the block-scaled MXFP8 and
                                    NVFP4 ones, rated from the FP8 measurement), in K elements
                                    of FP8 mainloop, paid with the split accumulator only
                                    (dgrad, wgrad; not the fast-accumulation forward);
                                    0 = not given (none) */
  bool gemm_mamf_not_ceiling;    /* gemm.mamf_is_ceiling false: the MAMF figures are a fitted
                                    anchor (calibrate compute), not the best rate of a shape
                                    search, so no GEMM is capped at them; false (the default):
                                    no GEMM runs faster than MAMF x sustained_fraction (MSMF) */
  char attn_kernel[32];          /* "FlashAttention-2", "FlashAttention-3" */
  double attn_fwd_fraction;      /* attention forward rate / peak */
  double attn_bwd_fraction;      /* attention backward rate / peak */
  double attn_triton_fwd_fraction; /* same for the Triton FlashAttention kernel (flash_attn_triton.py,
                                    llm-foundry attn_impl triton); 0 = not given, use the above */
  double attn_triton_bwd_fraction;
  double attn_cudnn_fwd_fraction; /* same for cuDNN's fused flash attention (TE FusedAttention,
                                    SDPA cudnn_attention); 0 = not given (attention cudnn refused) */
  double attn_cudnn_bwd_fraction;
  double attn_cudnn_shape_fwd_fraction; /* cuDNN's rate by shape: the large-shape asymptote of the
                                    forward / peak; 0 = not given (the constant fractions above) */
  double attn_cudnn_shape_bwd_fraction; /* same for the backward */
  double attn_cudnn_fwd_tile_fixed_keys; /* each query tile's fixed cost, in key positions */
  double attn_cudnn_bwd_tile_fixed_keys;
  double attn_shape_fwd_fraction; /* FlashAttention-2's rate by shape (attention.shape), same
                                    meaning as the cuDNN four; 0 = not given (the flat fractions) */
  double attn_shape_bwd_fraction;
  double attn_fwd_tile_fixed_keys;
  double attn_bwd_tile_fixed_keys;
  /* cuDNN's rate by shape as older cuDNN releases ran it (docs/step-model.md 2.2 "cuDNN by
   * version"): attention.cudnn.shape_<major>_<minor> (shape_2024 = cuDNN 9.0-9.1), in
   * ascending order of cudnn_through; a run of cuDNN v (layout.cudnn_version) takes the
   * first entry with cudnn_through >= v, none: today's figures above (pl_gpu_cudnn_shape) */
  struct pl_attn_cudnn_shape attn_cudnn_versions[PL_ATTN_CUDNN_VERSIONS_MAX];
  int attn_cudnn_version_count;
  double attn_cudnn_mxfp8_fwd_ratio; /* MXFP8 attention (layout.fp8_attention): cuDNN's MXFP8
                                    SDPA time over its BF16 time at the same shapes, head dims
                                    <= 128 (attention.cudnn.mxfp8_time_ratio); 0 = not given */
  double attn_cudnn_mxfp8_bwd_ratio;
  double attn_cudnn_mxfp8_mla_fwd_ratio; /* the same for latent attention's 192/128 heads */
  double attn_cudnn_mxfp8_mla_bwd_ratio;
  double attn_cudnn_hd64_shape_fwd_fraction; /* the four shape parameters of cuDNN's kernel at
                                    head dims <= 64 (attention.cudnn.shape_head_dim_64); 0 = not
                                    given (the head-dim-128 shape above) */
  double attn_cudnn_hd64_shape_bwd_fraction;
  double attn_cudnn_hd64_fwd_tile_fixed_keys;
  double attn_cudnn_hd64_bwd_tile_fixed_keys;
  double attn_hd64_shape_fwd_fraction; /* the same four for FlashAttention-2 (attention.
                                    shape_head_dim_64); 0 = not given (attention.shape) */
  double attn_hd64_shape_bwd_fraction;
  double attn_hd64_fwd_tile_fixed_keys;
  double attn_hd64_bwd_tile_fixed_keys;
  double attn_tensor_flops_per_exp; /* dense 16-bit tensor-core FLOPs per clock per SM over the
                                    SFU's exponentials (MUFU.EX2) per clock per SM
                                    (attention.cudnn.tensor_flops_per_exp): bounds the fused
                                    attention's rate at one exponential per score element;
                                    0 = not given (no bound) */
  double ssd_fwd_fraction[PL_SSD_KERNELS]; /* the Mamba-2 mixer's Triton kernels
                                    (efficiency.mamba_ssm): each part's measured rate, of the BF16
                                    peak on the FLOPs plateau counts for it, or of the HBM
                                    bandwidth on its bytes (PL_SSD_STATES, _NORM, _GATE); 0 = not
                                    given (the GEMM tile model, the HBM bytes at hbm_fraction) */
  double ssd_bwd_fraction[PL_SSD_KERNELS]; /* the same for the backward, re-run kernels included */
  double hbm_fraction;           /* achievable / datasheet HBM bandwidth */
  double mxfp8_quantize_fraction; /* efficiency.mxfp8_quantize: the fraction of the HBM bandwidth
                                    Transformer Engine's MXFP8 quantize kernels reach (measured);
                                    0 = not given (hbm_fraction) */
  double fp8_current_quantize_fraction; /* efficiency.fp8_current_quantize: the same for TE's
                                    per-tensor FP8 current-scaling casts (amax pass, then the
                                    cast); 0 = not given (hbm_fraction) */
  double nvfp4_quantize_fraction; /* efficiency.nvfp4_quantize: the same for TE's NVFP4 casts
                                    (amax pass, then the cast); 0 = not given (hbm_fraction) */
  double layer_norm_eager_fraction; /* efficiency.layer_norm_eager: the fraction of the HBM
                                    bandwidth PyTorch's native layer_norm kernel reaches on the
                                    least bytes (measured), for the norms of eager runs
                                    (layout.kernels unfused); 0 = not given (hbm_fraction) */
  double rms_norm_eager_fraction; /* efficiency.rms_norm_eager: the same for the eager RMSNorm
                                    chain (HF LlamaRMSNorm's ops) on the bytes plateau counts
                                    for it (the norm op and rmsnorm_eager); 0 = not given */
  double rms_norm_compiled_fraction; /* efficiency.rms_norm_compiled: the fraction of the HBM
                                    bandwidth torch.compile's (Inductor's) generated RMSNorm
                                    kernel reaches on the least bytes (read x, write y),
                                    published, for the norms of compiled runs
                                    (layout.inductor_norms); 0 = not given (hbm_fraction) */
  double strided_elementwise_fraction; /* efficiency.strided_elementwise: the fraction of the HBM
                                    bandwidth a bf16 unary kernel (2 B read, 2 B written per
                                    element) reaches on PyTorch's non-vectorized element-wise
                                    path (a strided or broadcast operand), measured; such kernels
                                    are timed per element at that rate whatever their bytes
                                    (pl_op strided_elems); 0 = not given (hbm_fraction) */
  double rope_eager_fraction;     /* efficiency.rope_eager: the fraction of the HBM bandwidth
                                    HF's eager RoPE chain (apply_rotary_pos_emb) reaches forward
                                    on the bytes plateau counts (the rope op and rope_eager);
                                    0 = not given (hbm_fraction) */
  double rope_eager_bwd_fraction; /* efficiency.rope_eager_bwd: the same for its autograd
                                    backward; 0 = not given (hbm_fraction) */
  double kernel_overhead_s;      /* fixed cost of each kernel (launch gap, tail) */
  double overlap_slowdown;       /* compute time increase while NCCL kernels run */
  double comm_overlap_slowdown;  /* efficiency.comm_overlap_slowdown: time increase of an
                                    SM-driven NVLink collective while compute runs beside it
                                    on its GPU; 0 = not given (not slowed) */
  double power_compute;          /* (draw - idle) / (tdp - idle) while computing */
  double power_comm;             /* same during exposed communication */
  double power_wait;             /* same while waiting inside a step (pipeline bubble) */
};

#define PL_GPU_DEVICE_NAMES 4

struct pl_gpu {
  char name[32];                 /* preset name, e.g. "h100" */
  char vendor[16];               /* "nvidia", "amd" */
  char description[128];         /* one line for people: "NVIDIA H100 SXM5 80 GB (Hopper)" */
  char arch[16];                 /* "volta", "ampere", "hopper", "blackwell", "cdna3":
                                    selects the per-architecture rows of NCCL's tuning tables */
  double peak_bf16_flops_per_s;  /* dense tensor-core BF16/FP16 */
  double peak_fp8_flops_per_s;   /* dense FP8; 0 when unsupported */
  double peak_tf32_flops_per_s;  /* dense TF32; 0 when unsupported */
  double peak_mxfp8_flops_per_s; /* dense MXFP8 (block-scaled FP8 tensor-core MMA); 0 when
                                    unsupported (Hopper and older) */
  double peak_nvfp4_flops_per_s; /* dense NVFP4; 0 when unsupported */
  double hbm_bytes;              /* memory capacity */
  double hbm_bytes_per_s;        /* memory bandwidth */
  int64_t sm_count;              /* SMs (NVIDIA) or CUs (AMD) */
  int sm_arch;                   /* NVIDIA compute capability as major x 10 + minor ("compute_capability"
                                    10.3 -> 103); 0 = not given */
  double tdp_w;                  /* board power limit */
  double idle_w;                 /* draw when idle but allocated */
  double power_cap_w;            /* input: board power capped below tdp_w (nvidia-smi -pl,
                                    --power-cap); 0 = none */
  double clock_cv;               /* input: spread of the sustained clock across the GPUs of
                                    the machine, standard deviation over mean (--gpu-variability;
                                    default the GPU file's measured efficiency.clock_spread, else
                                    0); 0 = every GPU at the preset's clock */
  double clock_slowest_fraction; /* derived (pl_gpu_variability_resolve): the slowest of the
                                    run's GPUs' clock against the mean; 0 = not resolved (1) */
  /* GPU-to-GPU links (NVLink, AMD Infinity Fabric/xGMI) */
  int64_t link_count;            /* links per GPU */
  double link_bytes_per_s;       /* per link, per direction, datasheet */
  double nccl_link_bytes_per_s;  /* per link, per direction, as NCCL's topology assumes it
                                    (src/graph/topo.h SM*_NVLINK_BW); the collective model uses it */
  struct pl_gpu_efficiency eff;  /* step-model efficiency and power (sim) */
  char default_cluster[32];      /* cluster preset a run on this GPU gets, "" none */
  char device_names[PL_GPU_DEVICE_NAMES][32]; /* substrings of the device name the driver
                                    reports (Kineto deviceProperties) that mean this GPU */
  int n_device_names;
};

struct pl_cluster {
  char name[64];                 /* preset name or file name */
  char description[160];         /* one line for people */
  char source_path[256];         /* file it was loaded from, "" for a preset */
  char gpu_name[32];             /* GPU preset this cluster is built from */
  struct pl_gpu gpu;             /* resolved GPU */
  int64_t gpus_per_node;
  int64_t segment_gpus;          /* GPUs of the smallest unit of a node a job can be placed in
                                    (an NVL72 rack's compute tray: 4); 0: the node is placed
                                    whole. pl_cluster_place */
  /* intra-node fabric (NVLink/NVSwitch, xGMI) */
  char intra_kind[32];           /* "nvswitch", "hybrid-cube-mesh", "xgmi" */
  double intra_bytes_per_s;      /* per GPU, per direction */
  double intra_latency_s;        /* one hop */
  bool nvls;                     /* NVLink SHARP (in-switch reduction) available */
  double intra_nccl_bytes_per_s; /* per GPU, per direction, as the collective model uses it:
                                    links x NCCL's per-link figure, or a calibrated value */
  /* inter-node network */
  int64_t nics_per_node;
  double nic_bytes_per_s;        /* per NIC, per direction */
  double inter_latency_s;        /* one hop, end to end */
  double inter_msg_s;            /* host-side cost of one network message on NCCL's proxy path
                                    (one proxy thread posts and completes every channel's
                                    message of a ring step in turn; src/net/proxy_msg.c);
                                    0 in presets (no published figure), fitted by calibrate */
  char inter_kind[32];           /* "infiniband", "efa", "roce", "tcpxo", "none" */
  bool sharp;                    /* InfiniBand SHARP in-network reduction in use by NCCL
                                    (CollNet: NCCL_COLLNET_ENABLE=1 with the SHARP plugin,
                                    groups of >= 2 nodes); docs/collectives.md, "CollNet" */
  char gpu_nic_path[8];          /* PCIe path from a GPU to its NIC as NCCL's topology names it:
                                    "pix", "pxb" (PCIe switches, the default), "pxn", "phb"
                                    (through the CPU's host bridge), "sys" (across CPUs);
                                    NCCL enables LL128 across nodes only up to PXB (PXN on
                                    Hopper and later) */
  char cpu_vendor[16];           /* "intel", "amd", "arm": NCCL's tuner reads it (LL caps,
                                    network post overhead, NCCL >= 2.29's NVLS_TREE
                                    ranking on x86 hosts) */
  /* collective-model settings (see docs/collectives.md) */
  int64_t nccl_channels;         /* ring/tree channels NCCL builds on this system */
  int64_t nccl_min_channels;     /* NCCL_MIN_NCHANNELS / NCCL_MIN_CTAS the system sets; 0: NCCL's
                                    default (ncclTopoPostset copies channels up to it) */
  char nccl_tuner[24];           /* who picks each call's algorithm and protocol: "nccl" (NCCL's
                                    own tuner, the default) or "aws-ofi-nccl-p5" (the aws-ofi-nccl
                                    tuner plugin's P5/P5e region map for groups of > 2 nodes,
                                    src/net/ofi_regions.c; docs/collectives.md, "Cloud fabrics") */
  int64_t nccl_version;          /* NCCL release the system runs, NCCL_VERSION_CODE (2.29.2 ->
                                    22902; pl_nccl_version_parse); 0: not stated, plateau's
                                    default tables (NCCL 2.28.3-2.28.7); src/net/nccl_version.c */
  double coll_launch_s;          /* fixed cost per collective call not in NCCL's own model
                                    (launch, host sync); 0 in presets, fitted by calibrate */
  double coll_floor_s;           /* shortest a call can take, overlapping the transfer (one host
                                    thread launching on several GPUs, nccl-tests -g N);
                                    0 in presets, fitted by calibrate */
  bool calibrated;               /* fabric figures come from `plateau calibrate nccl` */
  bool calibrated_intra;         /* ... including the intra-node hop latency and bandwidth */
  bool calibrated_inter;         /* ... including the network hop latency */
  bool calibrated_nic_bw;        /* ... and the NIC bandwidth (fitted only where it binds; else the
                                    base's figure, written with the base as its source) */
  bool calibrated_msg;           /* ... and the per-message proxy cost (inter_msg_s; likewise) */
  bool kept_intra_lat;           /* the fit left the NVLink hop latency at the base's figure (no
                                    fitted row moved it, e.g. an NVLS-only log): written as the
                                    base's */
  bool kept_intra_bw;            /* likewise the NVLink bandwidth */
  bool kept_inter_lat;           /* likewise the network hop latency */
  /* power */
  double node_other_w;           /* node draw beyond the GPUs (CPUs, NICs, fans) */
};

/* The NCCL version a system runs (struct pl_cluster nccl_version), as NCCL's
 * NCCL_VERSION_CODE: major x 10000 + minor x 100 + patch (2.29.2 -> 22902).
 * 0: not stated, the tables plateau carries by default (NCCL 2.28.3-2.28.7).
 * Accepted: 2.23.0 to 2.29.99, the releases whose tuning tables were read
 * (tags v2.23.4-1 .. v2.29.7-1; src/net/nccl_version.c says which values
 * change with the release and what they move). */
#define PL_NCCL_VERSION_MIN 22300
#define PL_NCCL_VERSION_MAX 22999
/* "2.29.2", also as NCCL prints it ("2.26.2+cuda12.8") or tagged
 * ("2.29.2-1"); anything else, or a version outside the range, is an error
 * naming the text. */
enum pl_status pl_nccl_version_parse(const char *text, int64_t *code, struct pl_diag *diag);
/* "2.29.2" for 22902 into out (n >= 16 holds any code); "" for 0. */
void pl_nccl_version_str(int64_t code, char *out, size_t n);

/* The i-th value of cluster.nccl_tuner (who picks each call's algorithm and
 * protocol: "nccl", NCCL's own tuner; "aws-ofi-nccl-p5", the aws-ofi-nccl
 * tuner plugin's P5/P5e region map, src/net/ofi_regions.c), NULL past the
 * end: what the cluster file's field and predict's --nccl-tuner accept. */
const char *pl_nccl_tuner_name(size_t i);
/* Those values, one home for each name: NCCL's own tuner, and the
 * aws-ofi-nccl plugin's P5/P5e region map. */
#define PL_NCCL_TUNER_NCCL "nccl"
#define PL_NCCL_TUNER_AWS_OFI_P5 "aws-ofi-nccl-p5"
/* c->nccl_tuner, or PL_NCCL_TUNER_NCCL where it is empty (a cluster built
 * in code rather than loaded): what reports print and edits compare. */
const char *pl_cluster_nccl_tuner(const struct pl_cluster *c);

/* The cuDNN release a run uses (layout.cudnn_version), as cuDNN 9's CUDNN_VERSION:
 * major x 10000 + minor x 100 + patch (9.13.0 -> 91300; what
 * torch.backends.cudnn.version() prints). 0 (PL_CUDNN_LATEST): today's cuDNN,
 * the GPU file's attention.cudnn.shape. Accepted from 8.9.0, the first cuDNN
 * Transformer Engine runs its fused flash attention (F16_arbitrary_seqlen) on. */
#define PL_CUDNN_LATEST 0
#define PL_CUDNN_VERSION_MIN 80900
#define PL_CUDNN_VERSION_MAX 999999
/* The versions the older on/off flags stand for (--cudnn-2024, --cudnn-913): the
 * cuDNN NVIDIA published the fitted benchmark of (9.1.0, 9.13.0). */
#define PL_CUDNN_2024 90100
#define PL_CUDNN_913 91300
/* NGC PyTorch 25.04's cuDNN, 9.9.0 (NVIDIA/cudnn-frontend @ 06ddf80
 * benchmark/Llama-3.2-1B-Training/README.md: torch.backends.cudnn.version() =
 * 90900): the MLPerf v5.0 Blackwell images' (src/validate/sources_nemo.c). */
#define PL_CUDNN_NGC_2504 90900
/* NGC PyTorch 25.01's cuDNN, 9.7.0 (mlcommons/training_results_v5.0 @ 0fdc28f0
 * NVIDIA/systems/eos-dfw_n64_ngc25.01_nemo.json other_software_stack:
 * cudnn_version 9.7.0.66, cublas_version 12.8.3.14, cuda_version 12.8.0.038, an
 * image FROM nvcr.io/nvidia/pytorch:25.01-py3 that installs no cuDNN of its
 * own): the base of the NeMo 25.02 and 25.04 containers
 * (src/validate/sources_nemo.c validate_nemo_2025_cudnn). */
#define PL_CUDNN_NGC_2501 90700
/* "9.13", "9.13.1" or "latest"; anything else, or a version below 8.9, is an
 * error naming the text. */
enum pl_status pl_cudnn_version_parse(const char *text, int64_t *code, struct pl_diag *diag);
/* "9.13" for 91300, "9.13.1" for 91301, "latest" for 0 (n >= 16 holds any code). */
void pl_cudnn_version_str(int64_t code, char *out, size_t n);
/* Whether a key under a GPU file's attention.cudnn names a cuDNN release's shape
 * ("shape_9_13", "shape_9_13_1", "shape_2024"), and the oldest and newest version
 * it stands for. */
bool pl_cudnn_shape_key(const char *key, int64_t *from, int64_t *through);
/* The rate by shape a run of cuDNN `code` takes: the entry of the oldest release
 * at or after it (a release between two entries, or older than the oldest one,
 * runs as the next one measured: no older release has been measured faster);
 * NULL, the GPU file's attention.cudnn.shape (today's), when the run's cuDNN is
 * newer than every entry or latest (0). */
const struct pl_attn_cudnn_shape *pl_gpu_cudnn_shape(const struct pl_gpu_efficiency *e,
                                                     int64_t code);

/* Load a GPU by preset name or path to a plateau GPU file. */
enum pl_status pl_gpu_load(const char *name_or_path, struct pl_gpu *out, struct pl_diag *diag);
/* Load a cluster by preset name or file path; resolves its GPU. */
enum pl_status pl_cluster_load(const char *name_or_path, struct pl_cluster *out,
                               struct pl_diag *diag);
/* Parse a GPU or cluster document held in memory (text need not be
 * NUL-terminated); origin names it in messages. A cluster's "gpu" is resolved
 * as pl_cluster_load does (preset name or file path). */
enum pl_status pl_gpu_parse(const char *text, size_t len, const char *origin, struct pl_gpu *out,
                            struct pl_diag *diag);
enum pl_status pl_cluster_parse(const char *text, size_t len, const char *origin,
                                struct pl_cluster *out, struct pl_diag *diag);
/* The cluster preset a run on this GPU (preset or file) gets when none is
 * named: the GPU file's "default_cluster" ("h100" -> "dgx-h100"), or NULL
 * when it has none, names no cluster preset, or the GPU does not load. */
const char *pl_cluster_default_for_gpu(const char *gpu_name);
/* The GPU preset whose "device_names" match a device name as the driver
 * reports it ("NVIDIA H100 80GB HBM3" -> "h100"); the longest matching
 * substring wins ("A100-SXM4-80GB" over "A100"). NULL when none matches. */
const char *pl_gpu_preset_for_device(const char *device);

/* Write a cluster as a plateau cluster file that pl_cluster_load reads back,
 * every quantity with its unit and a source. Writes a temporary beside path,
 * then renames it (pl_outfile).
 * note (may be NULL) is stored as the file's "calibration" text. */
enum pl_status pl_cluster_save(const struct pl_cluster *c, const char *path, const char *note,
                               struct pl_diag *diag);

/* Place a job of `gpus` GPUs on the cluster. A node with segment_gpus > 0
 * (an NVL72 rack: 18 trays of 4 GPUs) can be cut into NVLink segments:
 * when gpus is above one node and not a multiple of it, the job runs on
 * segments of the largest multiple of segment_gpus (at most a node) that
 * divides gpus, each with its share of the node's NICs (Slurm's --segment,
 * which the Megatron MoE model zoo's GB200/GB300 commands set: SEGMENT=16
 * trays = 64 GPUs for 128-1,024-GPU jobs). c's gpus_per_node and
 * nics_per_node become the segment's; returns the segment's GPUs, or 0 when
 * c is left as it is. docs/hardware.md "NVLink segments". */
int64_t pl_cluster_place(struct pl_cluster *c, int64_t gpus);

/* Node network bandwidth per direction: NICs x per-NIC bandwidth. */
double pl_cluster_node_net_bytes_per_s(const struct pl_cluster *c);

/* Peak dense FLOP/s for a training dtype. */
double pl_gpu_peak_flops_per_s(const struct pl_gpu *g, enum pl_dtype dtype);
/* Bytes a GEMM operand element takes in memory in that dtype, its block
 * scaling factors included: 2 (BF16), 1 (FP8; the per-tensor scale is
 * negligible), 1 + 1/32 (MXFP8: one 1-byte E8M0 scale per 32 values), 0.5 +
 * 1/16 (NVFP4: 4-bit values, one 1-byte E4M3 scale per 16). */
double pl_dtype_element_bytes(enum pl_dtype dtype);
/* Whether Transformer Engine runs per-tensor FP8 GEMMs in non-TN layouts on
 * this GPU, so that its per-tensor FP8 quantizers write no transposed copy
 * (transformer_engine/common/transformer_engine.cpp
 * nvte_is_non_tn_fp8_gemm_supported: compute capability 10.0-11.x or 13.0+,
 * TE v2.3 to v2.18; pytorch/csrc/quantizer.cpp Float8Quantizer and
 * Float8CurrentScalingQuantizer create_tensor: with_transpose = columnwise_usage
 * && !that). False when the GPU file gives no compute_capability. */
bool pl_gpu_fp8_non_tn_gemm(const struct pl_gpu *g);
/* Cap the board power at w watts: idle_w < w <= tdp_w, else PL_ERR_RANGE
 * naming the GPU and its range. */
enum pl_status pl_gpu_set_power_cap(struct pl_gpu *g, double w, struct pl_diag *diag);
/* The sustained SM clock under the power cap against the clock at tdp_w
 * (1 without a cap): docs/hardware.md "Power cap". */
double pl_gpu_clock_fraction(const struct pl_gpu *g);
/* The expected largest of n independent standard normal draws (0 for n <= 1;
 * 1/sqrt(pi) for 2): docs/hardware.md "GPU variability". */
double pl_normal_expected_max(int64_t n);
/* Opt-in: the GPUs' sustained clocks spread with coefficient of variation cv
 * (0 < cv <= PL_GPU_CLOCK_CV_MAX, else PL_ERR_RANGE; 0 turns it off). */
#define PL_GPU_CLOCK_CV_MAX 0.1
enum pl_status pl_gpu_set_variability(struct pl_gpu *g, double cv, struct pl_diag *diag);
/* A synchronous step on gpus GPUs runs at the pace of the slowest: sets
 * clock_slowest_fraction = 1 - clock_cv x pl_normal_expected_max(gpus) (1
 * without a spread), which pl_gpu_clock_fraction applies. */
void pl_gpu_variability_resolve(struct pl_gpu *g, int64_t gpus);

#endif
