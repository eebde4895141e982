/*
 * yaml: YAML text as a small tree of mappings, sequences and scalars, each
 * with the line it starts on, read with libyaml (the only user of libyaml).
 *
 * The skill files and the policy table are YAML; their loaders walk this
 * tree and report errors as "FILE:LINE: ...". Only what those files need
 * is kept: mapping keys are scalars and unique (a repeated key is an
 * error), anchors and aliases are resolved by libyaml, tags are ignored.
 *
 * Ownership: the tree owns every node and string; ks_ynode_free() frees a
 * tree. Pointers returned by ks_ynode_get() point into it.
 * May include: libc, core/.
 */
#ifndef KS_MEMORY_YAML_H
#define KS_MEMORY_YAML_H

#include <stddef.h>

struct ks_buf;

enum ks_ykind { KS_Y_SCALAR, KS_Y_SEQ, KS_Y_MAP };

struct ks_ynode {
	enum ks_ykind kind;
	int line;			/* 1-based, in the file */
	char *str;			/* KS_Y_SCALAR: the text */
	int quoted;			/* KS_Y_SCALAR: written in quotes */
	size_t n;			/* KS_Y_SEQ, KS_Y_MAP: entries */
	char **keys;			/* KS_Y_MAP: n keys */
	int *key_lines;			/* KS_Y_MAP: the line of each key */
	struct ks_ynode **items;	/* n values */
};

/*
 * Parse `text` (`len` bytes) as one YAML document. `first_line` is the
 * file line of the text's first line (front matter starts on line 2).
 * Returns the root, or NULL with "FILE:LINE: message" in `err`. An empty
 * document is an empty mapping.
 */
struct ks_ynode *ks_yaml_parse(const char *file, const char *text, size_t len,
			       int first_line, struct ks_buf *err);

void ks_ynode_free(struct ks_ynode *n);

/* The value of `key` in mapping `map`, or NULL. */
const struct ks_ynode *ks_ynode_get(const struct ks_ynode *map, const char *key);

/* "a mapping", "a list", "text": for messages. */
const char *ks_ynode_kind_name(enum ks_ykind k);

#endif
