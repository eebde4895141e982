/*
 * ks: the engine's command line. One function per command, dispatched from
 * a table (git's commands[]): each takes argc/argv after the command name
 * and returns the process exit status (0, or KS_EXIT_* from util.h).
 * Commands print their results on stdout and errors as "ks: error: ...".
 * May include: libc, core/, every engine module.
 */
#ifndef KS_CLI_KS_H
#define KS_CLI_KS_H

struct ks_buf;
struct ks_conf;
struct ks_inventory;

int ks_main(int argc, char **argv);

int ks_cmd_analyze(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_evidence(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_doctor(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_builds(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_capture(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_captures(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_replay(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_shim(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_transform(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_try(int argc, char **argv, struct ks_conf *conf);

/* analyze.c: the inventory of the TU that build record `record` (or, when
 * NULL, `file` with the nvcc arguments nvcc_argv) compiled, parsed for
 * `arch` (NULL: the build's newest); *arch_used gets the arch parsed for. */
int ks_analyze_inventory(const char *record, const char *file, char **nvcc_argv,
			 int nvcc_argc, const char *arch, struct ks_conf *conf,
			 struct ks_inventory *inv, char **arch_used,
			 struct ks_buf *err);

#endif
