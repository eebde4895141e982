/*
 * ks: the engine's command line. One function per command, dispatched from
 * a table (git's commands[]): each takes argc/argv after the command name
 * and returns the process exit status (0, or KS_EXIT_* from util.h).
 * Commands print their results on stdout and errors as "ks: error: ...".
 * May include: libc, core/, every engine module.
 */
#ifndef KS_CLI_KS_H
#define KS_CLI_KS_H

struct cJSON;
struct ks_buf;
struct ks_conf;

int ks_main(int argc, char **argv);

int ks_cmd_analyze(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_evidence(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_doctor(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_builds(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_capture(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_captures(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_replay(int argc, char **argv, struct ks_conf *conf);
int ks_cmd_shim(int argc, char **argv, struct ks_conf *conf);

#endif
