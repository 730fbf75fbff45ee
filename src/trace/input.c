/* input.c: a trace file read in fixed chunks, plain JSON or gzip (detected by
 * its magic bytes 1f 8b, RFC 1952, not by the name). Gzip is inflated chunk by
 * chunk with zlib, so memory stays at two buffers whatever the file size.
 * A trace already in memory (pl_trace_analyze_mem, the fuzz target) takes the
 * same path: only fill() knows whether bytes come from a FILE or a buffer, and
 * the chunk size can be made small so tokens and gzip blocks straddle chunks.
 * Concatenated gzip members (RFC 1952 section 2.2) are read as one stream.
 * A gzip stream that stops before its end-of-stream marker is an error that
 * names the compressed offset: truncated downloads are common. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include <plateau/alloc.h>

#include "trace_int.h"

struct trace_input {
  FILE *f;              /* NULL when reading from memory */
  const unsigned char *mem;
  size_t mem_len, mem_pos;
  size_t chunk;         /* bytes per read and per inflate output */
  const char *path;
  bool gz;
  bool gz_done;         /* Z_STREAM_END seen with no more input */
  z_stream z;
  unsigned char *in;    /* compressed (or plain) bytes */
  unsigned char *out;   /* inflated bytes */
  int64_t offset;       /* JSON bytes handed out so far */
  int64_t in_offset;    /* compressed bytes read so far */
  size_t pending;       /* bytes already in `in` from the gzip sniff, handed out first */
};

static enum pl_status fill(struct trace_input *t, size_t *got, struct pl_diag *diag) {
  if (t->f == NULL) {
    size_t left = t->mem_len - t->mem_pos;
    *got = left < t->chunk ? left : t->chunk;
    if (*got > 0)
      memcpy(t->in, t->mem + t->mem_pos, *got);
    t->mem_pos += *got;
    t->in_offset += (int64_t)*got;
    return PL_OK;
  }
  if (t->pending > 0) {
    *got = t->pending;
    t->pending = 0;
    t->in_offset += (int64_t)*got;
    return PL_OK;
  }
  *got = fread(t->in, 1, t->chunk, t->f);
  if (*got == 0 && ferror(t->f))
    return pl_diag_set(diag, PL_ERR_IO, "trace '%s': read error after byte %lld: %s", t->path,
                       (long long)t->in_offset, strerror(errno));
  t->in_offset += (int64_t)*got;
  return PL_OK;
}

/* Buffers and gzip detection, once the source is set. */
static enum pl_status start(struct trace_input *t, struct pl_diag *diag) {
  t->in = pl_malloc(t->chunk);
  t->out = pl_malloc(t->chunk);
  if (t->in == NULL || t->out == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "trace '%s': out of memory", t->path);
  if (t->f != NULL) {
    /* Sniff from the first chunk, which fill() then hands out: no seek, so a
     * pipe (`/dev/stdin`, `<(zcat ...)`) reads like a file. */
    t->pending = fread(t->in, 1, t->chunk, t->f);
    if (t->pending == 0 && ferror(t->f))
      return pl_diag_set(diag, PL_ERR_IO, "trace '%s': read error: %s", t->path,
                         strerror(errno));
    t->gz = t->pending >= 2 && t->in[0] == 0x1f && t->in[1] == 0x8b;
  } else {
    t->gz = t->mem_len >= 2 && t->mem[0] == 0x1f && t->mem[1] == 0x8b;
  }
  if (t->gz && inflateInit2(&t->z, 15 + 16) != Z_OK) {
    t->gz = false;
    return pl_diag_set(diag, PL_ERR_NOMEM, "trace '%s': cannot start zlib", t->path);
  }
  return PL_OK;
}

enum pl_status trace_input_open(const char *path, struct trace_input **out,
                                struct pl_diag *diag) {
  struct trace_input *t = pl_calloc(1, sizeof *t);
  if (t == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "trace '%s': out of memory", path);
  t->path = path;
  t->chunk = TRACE_CHUNK;
  t->f = fopen(path, "rb");
  if (t->f == NULL) {
    enum pl_status s = pl_diag_set(diag, PL_ERR_IO, "cannot open trace '%s': %s", path,
                                   strerror(errno));
    pl_free(t);
    return s;
  }
  enum pl_status s = start(t, diag);
  if (s != PL_OK) {
    trace_input_close(t);
    return s;
  }
  *out = t;
  return PL_OK;
}

enum pl_status trace_input_open_mem(const void *data, size_t len, const char *name, size_t chunk,
                                    struct trace_input **out, struct pl_diag *diag) {
  struct trace_input *t = pl_calloc(1, sizeof *t);
  if (t == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "trace '%s': out of memory", name);
  t->path = name;
  t->mem = data;
  t->mem_len = data != NULL ? len : 0;
  t->chunk = chunk > 0 && chunk < TRACE_CHUNK ? chunk : TRACE_CHUNK;
  enum pl_status s = start(t, diag);
  if (s != PL_OK) {
    trace_input_close(t);
    return s;
  }
  *out = t;
  return PL_OK;
}

static enum pl_status gz_error(struct trace_input *t, const char *why, struct pl_diag *diag) {
  enum pl_status s = pl_diag_set(diag, PL_ERR_PARSE,
                                 "trace '%s': %s at compressed byte %lld (JSON byte %lld)",
                                 t->path, why, (long long)(t->in_offset - (int64_t)t->z.avail_in),
                                 (long long)t->offset);
  if (diag != NULL)
    diag->offset = t->offset;
  return s;
}

/* Inflate until some output is ready or the stream ends. */
static enum pl_status gz_read(struct trace_input *t, size_t *len, struct pl_diag *diag) {
  *len = 0;
  while (*len == 0 && !t->gz_done) {
    if (t->z.avail_in == 0) {
      size_t got;
      enum pl_status s = fill(t, &got, diag);
      if (s != PL_OK)
        return s;
      if (got == 0)
        return gz_error(t, "truncated gzip data (no end-of-stream marker)", diag);
      t->z.next_in = t->in;
      t->z.avail_in = (uInt)got;
    }
    t->z.next_out = t->out;
    t->z.avail_out = (uInt)t->chunk;
    int rc = inflate(&t->z, Z_NO_FLUSH);
    *len = t->chunk - t->z.avail_out;
    if (rc == Z_STREAM_END) {
      /* Another member may follow; plain EOF ends the file. */
      if (t->z.avail_in == 0) {
        size_t got;
        enum pl_status s = fill(t, &got, diag);
        if (s != PL_OK)
          return s;
        t->z.next_in = t->in;
        t->z.avail_in = (uInt)got;
      }
      if (t->z.avail_in == 0)
        t->gz_done = true;
      else if (inflateReset(&t->z) != Z_OK)
        return gz_error(t, "corrupt gzip member", diag);
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return gz_error(t, t->z.msg ? t->z.msg : "corrupt gzip data", diag);
    }
  }
  return PL_OK;
}

enum pl_status trace_input_read(struct trace_input *t, const unsigned char **buf, size_t *len,
                                int64_t *offset, struct pl_diag *diag) {
  enum pl_status s;
  *offset = t->offset;
  if (t->gz) {
    s = gz_read(t, len, diag);
    *buf = t->out;
  } else {
    s = fill(t, len, diag);
    *buf = t->in;
  }
  if (s == PL_OK)
    t->offset += (int64_t)*len;
  return s;
}

void trace_input_close(struct trace_input *t) {
  if (t == NULL)
    return;
  if (t->gz)
    inflateEnd(&t->z);
  if (t->f != NULL)
    fclose(t->f);
  pl_free(t->in);
  pl_free(t->out);
  pl_free(t);
}
