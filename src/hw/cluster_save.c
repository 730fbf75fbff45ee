/* cluster_save.c: write a struct pl_cluster as a plateau cluster file (the
 * format cluster_load.c reads; docs/hardware.md), so a calibrated cluster
 * works wherever a preset does. Every quantity is written with its unit and
 * a source: "fitted by plateau calibrate nccl" for calibrated figures, the
 * base cluster for the rest. The file is written to a temporary
 * (PATH.tmp.XXXXXX, pl_outfile) and renamed, so a reader never sees half a
 * file. */
#include <plateau/emit.h>
#include <plateau/hw.h>
#include <plateau/outfile.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void qty(struct pl_emit *e, const char *key, double v, double scale, const char *unit,
                const char *source) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.6g %s", v / scale, unit);
  pl_emit_obj_begin(e, key);
  pl_emit_str(e, "value", buf);
  pl_emit_str(e, "source", source);
  pl_emit_obj_end(e);
}

static void write_intra(struct pl_emit *e, const struct pl_cluster *c, const char *base,
                        const char *fitted) {
  pl_emit_obj_begin(e, "intra");
  pl_emit_str(e, "kind", c->intra_kind);
  qty(e, "bandwidth", c->intra_bytes_per_s, 1e9, "GB/s", base);
  const char *src = c->calibrated_intra ? fitted : base;
  qty(e, "nccl_bandwidth", c->intra_nccl_bytes_per_s, 1e9, "GB/s", c->kept_intra_bw ? base : src);
  qty(e, "latency", c->intra_latency_s, 1e-6, "us", c->kept_intra_lat ? base : src);
  pl_emit_bool(e, "nvls", c->nvls);
  pl_emit_obj_end(e);
}

static void write_inter(struct pl_emit *e, const struct pl_cluster *c, const char *base,
                        const char *fitted) {
  if (c->nics_per_node <= 0)
    return;
  pl_emit_obj_begin(e, "inter");
  pl_emit_str(e, "kind", c->inter_kind);
  pl_emit_int(e, "nics_per_node", c->nics_per_node);
  /* each figure names its own source: calibrate nccl holds the NIC bandwidth
   * and the message cost at the base's where no fitted row sees them
   * (src/calib/fit.c net_bw_binds, msg_binds) */
  qty(e, "nic_bandwidth", c->nic_bytes_per_s * 8.0, 1e9, "Gb/s",
      c->calibrated_nic_bw ? fitted : base);
  qty(e, "latency", c->inter_latency_s, 1e-6, "us",
      c->calibrated_inter && !c->kept_inter_lat ? fitted : base);
  if (c->inter_msg_s > 0.0)
    qty(e, "message_overhead", c->inter_msg_s, 1e-6, "us", c->calibrated_msg ? fitted : base);
  if (strcmp(c->gpu_nic_path, "pxb") != 0 && c->gpu_nic_path[0] != '\0')
    pl_emit_str(e, "gpu_nic_path", c->gpu_nic_path);
  if (c->sharp)
    pl_emit_bool(e, "sharp", true);
  pl_emit_obj_end(e);
}

static void write_all(struct pl_emit *e, const struct pl_cluster *c, const char *note) {
  const char *base = c->calibrated ? "from the base cluster named in 'calibration'"
                                    : "as loaded by plateau";
  const char *fitted = "fitted by plateau calibrate nccl to the logs named in 'calibration'";
  pl_emit_obj_begin(e, NULL);
  pl_emit_str(e, "name", c->name);
  pl_emit_str(e, "description", c->description);
  pl_emit_str(e, "gpu", c->gpu_name);
  pl_emit_int(e, "gpus_per_node", c->gpus_per_node);
  if (c->segment_gpus > 0)
    pl_emit_int(e, "segment_gpus", c->segment_gpus);
  pl_emit_str(e, "cpu_vendor", c->cpu_vendor);
  write_intra(e, c, base, fitted);
  write_inter(e, c, base, fitted);
  pl_emit_int(e, "nccl_channels", c->nccl_channels);
  if (c->nccl_min_channels > 0)
    pl_emit_int(e, "nccl_min_channels", c->nccl_min_channels);
  if (strcmp(pl_cluster_nccl_tuner(c), PL_NCCL_TUNER_NCCL) != 0)
    pl_emit_str(e, "nccl_tuner", c->nccl_tuner);
  if (c->nccl_version > 0) {
    char ver[32];
    pl_nccl_version_str(c->nccl_version, ver, sizeof ver);
    pl_emit_str(e, "nccl_version", ver);
  }
  qty(e, "launch_overhead", c->coll_launch_s, 1e-6, "us", c->calibrated ? fitted : base);
  qty(e, "call_floor", c->coll_floor_s, 1e-6, "us", c->calibrated ? fitted : base);
  qty(e, "node_other_power", c->node_other_w, 1.0, "W", base);
  if (note != NULL)
    pl_emit_str(e, "calibration", note);
  pl_emit_obj_end(e);
}

enum pl_status pl_cluster_save(const struct pl_cluster *c, const char *path, const char *note,
                               struct pl_diag *diag) {
  struct pl_outfile o;
  enum pl_status st = pl_outfile_open(&o, path, diag);
  if (st != PL_OK)
    return st;
  struct pl_emit *e = pl_emit_open(o.f);
  if (e == NULL)
    return pl_outfile_commit(
        &o, pl_diag_set(diag, PL_ERR_NOMEM, "out of memory writing '%s'", path), diag);
  write_all(e, c, note);
  st = pl_emit_close(e, diag);
  return pl_outfile_commit(&o, st, diag);
}
