/*
 * parse: what the files of src/evidence/ share and nothing else includes:
 * the record store, the text helpers and the instruction classes the
 * three parsers (ptxas.c, ptx.c, sass.c) stand on.
 * May include: libc, evidence.h.
 */
#ifndef KS_EVIDENCE_PARSE_H
#define KS_EVIDENCE_PARSE_H

#include <stddef.h>

#include "evidence.h"

/* The record of (name, arch), created empty when missing (evidence.c). */
struct ks_evidence_kernel *ks_ev_record(struct ks_evidence *ev, const char *name,
					size_t name_len, const char *arch);
void ks_ev_counts_add(struct ks_evidence_counts *to,
		      const struct ks_evidence_counts *c);

/* Text (evidence.c). */
const char *ks_ev_skip_space(const char *p);
/* Length of the line at `p` without its newline. */
size_t ks_ev_line_len(const char *p);
/* Split an opcode ("ld.global.nc.v4.f32") into at most `max` parts. */
size_t ks_ev_split_opcode(const char *op, size_t len, char parts[][24], size_t max);
int ks_ev_has_part(char parts[][24], size_t n, const char *want);

/* Count one instruction with opcode `op` (len bytes) into `c` (classes.c). */
void ks_ev_ptx_classify(struct ks_evidence_counts *c, const char *op, size_t len);
void ks_ev_sass_classify(struct ks_evidence_counts *c, const char *op, size_t len);

#endif
