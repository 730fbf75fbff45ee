/* write.c: the report, written atomically. Everything goes into a
 * fresh sibling directory <dir>.tmp-XXXXXX; only when it is complete is it
 * renamed to <dir> (an existing report is moved aside first and removed
 * after). A failure or an interruption removes the temporary directory and
 * leaves <dir> as it was. An existing <dir> is replaced only when it is
 * empty or carries the marker file a previous report wrote, so a mistyped
 * --out never deletes someone's files. */
#define _POSIX_C_SOURCE 200809L
#include "study_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <plateau/alloc.h>
#include <plateau/emit.h>
#include <plateau/outfile.h>

#define MARKER ".plateau-study"
#define PATH_CAP 4096

static bool cancelled(const struct pl_study_report_opts *o) {
  return o != NULL && o->cancel != NULL && *o->cancel != 0;
}

static bool dir_replaceable(const char *dir) {
  char marker[PATH_CAP];
  if (study_path(marker, sizeof marker, dir, MARKER) && access(marker, F_OK) == 0)
    return true;
  DIR *d = opendir(dir);
  if (d == NULL)
    return false;
  struct dirent *e;
  bool empty = true;
  while (empty && (e = readdir(d)) != NULL)
    empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
  closedir(d);
  return empty;
}

static enum pl_status check_target(const char *dir, struct pl_diag *diag) {
  struct stat sb;
  if (stat(dir, &sb) != 0)
    return errno == ENOENT ? PL_OK
                           : pl_diag_set(diag, PL_ERR_IO, "--out '%s': %s", dir, strerror(errno));
  if (!S_ISDIR(sb.st_mode))
    return pl_diag_set(diag, PL_ERR_IO, "--out '%s' exists and is not a directory", dir);
  if (!dir_replaceable(dir))
    return pl_diag_set(diag, PL_ERR_IO,
                       "--out '%s' exists and is not a plateau study report (no %s file); "
                       "remove it or choose another directory",
                       dir, MARKER);
  return PL_OK;
}

static enum pl_status write_spec(const struct pl_study *st, const char *tmp, struct pl_diag *diag) {
  char path[PATH_CAP];
  study_path(path, sizeof path, tmp, "spec.json");
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  struct pl_emit *e = pl_emit_open(f);
  enum pl_status rc = PL_ERR_NOMEM;
  if (e != NULL) {
    pl_emit_obj_begin(e, NULL);
    study_spec_json(e, &st->spec);
    pl_emit_obj_end(e);
    rc = pl_emit_close(e, diag);
  }
  if (fclose(f) != 0 && rc == PL_OK)
    rc = pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  return rc;
}

static enum pl_status write_marker(const char *tmp, struct pl_diag *diag) {
  char path[PATH_CAP];
  study_path(path, sizeof path, tmp, MARKER);
  FILE *f = fopen(path, "w");
  if (f == NULL ||
      fputs("written by plateau study; this directory is replaced by the next run\n", f) < 0 ||
      fclose(f) != 0)
    return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  return PL_OK;
}

/* First line of figures/gnuplot.log, for the note. */
static void log_line(const char *figdir, char *buf, size_t n) {
  char path[PATH_CAP];
  buf[0] = '\0';
  study_path(path, sizeof path, figdir, "gnuplot.log");
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return;
  if (fgets(buf, (int)n, f) != NULL)
    buf[strcspn(buf, "\n")] = '\0';
  fclose(f);
}

/* Draw every figure; on the first failure stop and explain in info->note. */
static void draw(const struct study_fig *figs, int n, const char *figdir, const char *dir,
                 const struct pl_study_report_opts *o, struct pl_study_report_info *info) {
  const char *gp = o != NULL && o->gnuplot != NULL && o->gnuplot[0] ? o->gnuplot : "gnuplot";
  info->figures_drawn = true;
  for (int i = 0; i < n && !cancelled(o); i++) {
    if (figs[i].skip[0] != '\0')
      continue;
    struct pl_diag d;
    pl_diag_clear(&d);
    enum pl_status rc = study_gnuplot_run(gp, figdir, figs[i].id, &d);
    if (rc == PL_OK)
      continue;
    info->figures_drawn = false;
    if (rc == PL_ERR_UNSUPPORTED) {
      info->note[0] = '\0';
      study_appendf(info->note, sizeof info->note,
                    "figures not drawn: %s; install gnuplot (Debian: apt-get install gnuplot-nox), "
                    "then run `gnuplot *.gp` in %s/figures or run the study again",
                    d.msg, dir);
      return;
    }
    char line[200];
    log_line(figdir, line, sizeof line);
    info->note[0] = '\0';
    study_appendf(info->note, sizeof info->note, "figures not drawn: %s: %s", d.msg, line);
    return;
  }
}

static enum pl_status write_all(const struct pl_study *st, const char *tmp, const char *dir,
                                const struct pl_study_report_opts *o,
                                struct pl_study_report_info *info, struct pl_diag *diag) {
  char path[PATH_CAP], figdir[PATH_CAP];
  int n = 0;
  struct study_fig *figs = study_figs_build(st, &n);
  if (figs == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "study: out of memory for the figures");
  study_path(figdir, sizeof figdir, tmp, "figures");
  enum pl_status rc =
      mkdir(figdir, 0755) == 0
          ? PL_OK
          : pl_diag_set(diag, PL_ERR_IO, "cannot create '%s': %s", figdir, strerror(errno));
  if (rc == PL_OK && study_path(path, sizeof path, tmp, "results.csv"))
    rc = study_write_csv(st, path, diag);
  if (rc == PL_OK && study_path(path, sizeof path, tmp, "results.json"))
    rc = study_write_json(st, figs, n, path, diag);
  if (rc == PL_OK)
    rc = write_spec(st, tmp, diag);
  for (int i = 0; rc == PL_OK && i < n; i++)
    if (figs[i].skip[0] == '\0') {
      rc = study_gnuplot_write(&figs[i], figdir, o != NULL ? o->png_scale : 1, diag);
      info->n_figures++;
    }
  if (rc == PL_OK)
    draw(figs, n, figdir, dir, o, info);
  if (rc == PL_OK && study_path(path, sizeof path, figdir, "gnuplot.log")) {
    struct stat sb;
    if (stat(path, &sb) == 0 && sb.st_size == 0)
      unlink(path); /* keep the log only when gnuplot said something */
  }
  struct study_html_info hi = {info->figures_drawn, info->note, o ? o->elapsed_s : 0.0,
                               o ? o->threads : 0};
  if (rc == PL_OK && !cancelled(o))
    rc = study_write_html(st, figs, n, tmp, &hi, diag);
  if (rc == PL_OK)
    rc = write_marker(tmp, diag);
  if (rc == PL_OK && cancelled(o))
    rc = pl_diag_set(diag, PL_ERR_INTERNAL, "interrupted");
  pl_free(figs);
  return rc;
}

/* Put tmp in dir's place, moving an old report aside first. */
static enum pl_status swap_in(const char *tmp, const char *dir, struct pl_diag *diag) {
  char old[PATH_CAP];
  struct stat sb;
  bool exists = stat(dir, &sb) == 0;
  if (exists) {
    if ((size_t)snprintf(old, sizeof old, "%s.old-XXXXXX", dir) >= sizeof old ||
        mkdtemp(old) == NULL)
      return pl_diag_set(diag, PL_ERR_IO, "cannot make room beside '%s': %s", dir, strerror(errno));
    if (rename(dir, old) != 0) {
      rmdir(old);
      return pl_diag_set(diag, PL_ERR_IO, "cannot move the old '%s' aside: %s", dir,
                         strerror(errno));
    }
  }
  if (rename(tmp, dir) != 0) {
    int err = errno;
    if (exists)
      rename(old, dir);
    return pl_diag_set(diag, PL_ERR_IO, "cannot rename the report to '%s': %s", dir, strerror(err));
  }
  if (exists)
    study_rmtree(old);
  return PL_OK;
}

/* The report is built in <dir>.tmp-XXXXXX beside dir (pl_study_write): make
 * and remove one now, so a parent that is missing, read-only or /proc fails
 * before the grid runs, not after minutes of study ("cannot create a directory
 * beside"; before, only an existing non-directory --out was caught early). */
static enum pl_status probe_beside(const char *target, struct pl_diag *diag) {
  char tmp[PATH_CAP];
  size_t len = strlen(target);
  while (len > 1 && target[len - 1] == '/')
    len--;
  if (len == 0 || len + 16 >= sizeof tmp)
    return pl_diag_set(diag, PL_ERR_RANGE, "--out '%s': not a usable directory name", target);
  memcpy(tmp, target, len);
  tmp[len] = '\0';
  study_appendf(tmp, sizeof tmp, ".tmp-XXXXXX");
  if (mkdtemp(tmp) == NULL)
    return pl_diag_set(diag, PL_ERR_IO, "cannot create a directory beside '%s': %s", target,
                       strerror(errno));
  rmdir(tmp);
  return PL_OK;
}

enum pl_status pl_study_out_check(const char *dir, struct pl_diag *diag) {
  char target[PATH_CAP];
  enum pl_status rc = pl_path_follow_links(dir, target, sizeof target, diag);
  if (rc == PL_OK)
    rc = check_target(target, diag);
  return rc == PL_OK ? probe_beside(target, diag) : rc;
}

enum pl_status pl_study_write(const struct pl_study *st, const char *dir,
                              const struct pl_study_report_opts *opts,
                              struct pl_study_report_info *info, struct pl_diag *diag) {
  struct pl_study_report_info local;
  if (info == NULL)
    info = &local;
  memset(info, 0, sizeof *info);
  char target[PATH_CAP], tmp[PATH_CAP];
  size_t len = strlen(dir);
  while (len > 1 && dir[len - 1] == '/')
    len--;
  if (len == 0 || len + 16 >= sizeof target)
    return pl_diag_set(diag, PL_ERR_RANGE, "--out '%s': not a usable directory name", dir);
  memcpy(target, dir, len);
  target[len] = '\0';
  /* --out through a symlink replaces the report it points to; the link stays */
  char linked[PATH_CAP];
  enum pl_status rc = pl_path_follow_links(target, linked, sizeof linked, diag);
  if (rc != PL_OK)
    return rc;
  if (strlen(linked) + 16 >= sizeof target)
    return pl_diag_set(diag, PL_ERR_RANGE, "--out '%s': not a usable directory name", dir);
  memcpy(target, linked, strlen(linked) + 1);
  rc = check_target(target, diag);
  if (rc != PL_OK)
    return rc;
  tmp[0] = '\0';
  study_appendf(tmp, sizeof tmp, "%s.tmp-XXXXXX", target);
  if (mkdtemp(tmp) == NULL)
    return pl_diag_set(diag, PL_ERR_IO, "cannot create a directory beside '%s': %s", target,
                       strerror(errno));
  chmod(tmp, 0755); /* mkdtemp makes it private; a report is for reading */
  rc = write_all(st, tmp, target, opts, info, diag);
  if (rc == PL_OK)
    rc = swap_in(tmp, target, diag);
  if (rc != PL_OK)
    study_rmtree(tmp);
  return rc;
}
