/* model_names.c: the names of a model's kinds (MLP, positions, norm), as
 * plateau model files spell them (docs/model.md, "Model files"): one home
 * for the strings the loader parses and the writers print. */
#include <plateau/model.h>

const char *pl_mlp_name(enum pl_mlp mlp) {
  static const char *const names[] = {"gelu", "swiglu"};
  return (unsigned)mlp < sizeof names / sizeof names[0] ? names[mlp] : "?";
}

const char *pl_pos_name(enum pl_pos pos) {
  static const char *const names[] = {"rotary", "learned", "alibi", "none"};
  return (unsigned)pos < sizeof names / sizeof names[0] ? names[pos] : "?";
}

const char *pl_norm_name(enum pl_norm norm) {
  static const char *const names[] = {"rms", "layer"};
  return (unsigned)norm < sizeof names / sizeof names[0] ? names[norm] : "?";
}
