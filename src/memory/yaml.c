/*
 * yaml: libyaml's document API, copied into ks_ynode trees so that the
 * loaders never touch libyaml types.
 */
#include "yaml.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "../core/buf.h"
#include "../core/util.h"

static const char *const kind_names[] = { "text", "a list", "a mapping" };

const char *
ks_ynode_kind_name(enum ks_ykind k)
{
	return kind_names[k];
}

void
ks_ynode_free(struct ks_ynode *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->n; i++) {
		ks_ynode_free(n->items[i]);
		if (n->keys)
			free(n->keys[i]);
	}
	free(n->items);
	free(n->keys);
	free(n->key_lines);
	free(n->str);
	free(n);
}

const struct ks_ynode *
ks_ynode_get(const struct ks_ynode *map, const char *key)
{
	size_t i;

	if (!map || map->kind != KS_Y_MAP)
		return NULL;
	for (i = 0; i < map->n; i++)
		if (!strcmp(map->keys[i], key))
			return map->items[i];
	return NULL;
}

/* Deep structures are not what these files hold; the limit stops cycles. */
#define MAX_DEPTH 32

static struct ks_ynode *
copy(yaml_document_t *doc, yaml_node_t *y, const char *file, int base,
     int depth, struct ks_buf *err)
{
	struct ks_ynode *n;
	size_t i, count;

	if (depth > MAX_DEPTH) {
		ks_error(err, "%s:%d: nested too deeply", file,
			 base + (int)y->start_mark.line);
		return NULL;
	}
	n = ks_xcalloc(1, sizeof(*n));
	n->line = base + (int)y->start_mark.line;
	switch (y->type) {
	case YAML_SCALAR_NODE:
		n->kind = KS_Y_SCALAR;
		n->str = ks_xstrndup((const char *)y->data.scalar.value,
				     y->data.scalar.length);
		n->quoted = y->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
		return n;
	case YAML_SEQUENCE_NODE:
		n->kind = KS_Y_SEQ;
		count = (size_t)(y->data.sequence.items.top -
				 y->data.sequence.items.start);
		n->items = ks_xcalloc(count ? count : 1, sizeof(*n->items));
		for (i = 0; i < count; i++) {
			yaml_node_t *c = yaml_document_get_node(
				doc, y->data.sequence.items.start[i]);

			n->items[i] = c ? copy(doc, c, file, base, depth + 1, err) : NULL;
			if (!n->items[i])
				goto fail;
			n->n++;
		}
		return n;
	case YAML_MAPPING_NODE:
		n->kind = KS_Y_MAP;
		count = (size_t)(y->data.mapping.pairs.top -
				 y->data.mapping.pairs.start);
		n->items = ks_xcalloc(count ? count : 1, sizeof(*n->items));
		n->keys = ks_xcalloc(count ? count : 1, sizeof(*n->keys));
		n->key_lines = ks_xcalloc(count ? count : 1, sizeof(*n->key_lines));
		for (i = 0; i < count; i++) {
			yaml_node_pair_t *p = &y->data.mapping.pairs.start[i];
			yaml_node_t *k = yaml_document_get_node(doc, p->key);
			yaml_node_t *v = yaml_document_get_node(doc, p->value);
			char *key;

			if (!k || !v || k->type != YAML_SCALAR_NODE) {
				ks_error(err, "%s:%d: a key must be plain text", file,
					 base + (int)(k ? k->start_mark.line : y->start_mark.line));
				goto fail;
			}
			key = ks_xstrndup((const char *)k->data.scalar.value,
					  k->data.scalar.length);
			if (ks_ynode_get(n, key)) {
				ks_error(err, "%s:%d: '%s' appears twice", file,
					 base + (int)k->start_mark.line, key);
				free(key);
				goto fail;
			}
			n->keys[i] = key;
			n->key_lines[i] = base + (int)k->start_mark.line;
			n->items[i] = copy(doc, v, file, base, depth + 1, err);
			if (!n->items[i]) {
				free(n->keys[i]);
				n->keys[i] = NULL;
				goto fail;
			}
			n->n++;
		}
		return n;
	default:
		ks_error(err, "%s:%d: empty node", file, n->line);
		break;
	}
fail:
	ks_ynode_free(n);
	return NULL;
}

struct ks_ynode *
ks_yaml_parse(const char *file, const char *text, size_t len, int first_line,
	      struct ks_buf *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	struct ks_ynode *n = NULL;

	if (!yaml_parser_initialize(&parser)) {
		ks_error(err, "%s: cannot start the YAML parser", file);
		return NULL;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		int line = first_line + (int)parser.problem_mark.line;
		int from = first_line + (int)parser.context_mark.line;

		ks_error(err, "%s:%d: %s%s%s", file, line,
			 parser.problem ? parser.problem : "not YAML",
			 parser.context ? " " : "", parser.context ? parser.context : "");
		if (parser.context && from != line)
			ks_buf_addf(err, " (started on line %d)", from);
		yaml_parser_delete(&parser);
		return NULL;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		n = ks_xcalloc(1, sizeof(*n));
		n->kind = KS_Y_MAP;
		n->line = first_line;
	} else {
		n = copy(&doc, root, file, first_line, 0, err);
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return n;
}
