/*
 * version: the one place the version number lives.
 * May include: nothing.
 */
#ifndef KS_CLI_VERSION_H
#define KS_CLI_VERSION_H

#define KS_VERSION "0.1.0"

#endif
