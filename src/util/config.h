/*
 * Command-line options and my.cnf-style option files, read the way mysqld reads them, into one ordered list of
 * (name, value, source) that the caller applies (main.c applies them to the system-variable store).
 *
 * The module knows nothing of system variables: the caller passes the table of options it accepts
 * (config_opt_t; session/sysvar.h's sysvar_config_opts() fills one from sysvar.def, main adds --help, --user ...).
 *
 * Command line:  --name=value  --name value  --name (booleans, and options whose argument is optional)
 *                --skip-name / --disable-name (=OFF)  --enable-name (=ON)  --loose-name (ignored if unknown)
 *                -P3306 / -P 3306 (short names from the table)  '-' and '_' are the same in names
 *                --no-defaults  --defaults-file=F  --defaults-extra-file=F  --print-defaults
 * Option file (MySQL's syntax):
 *     # comment            ; comment
 *     [mysqld]             a group; only the groups the caller names are read ([mysqld], [server], [stratad] ...)
 *     name = value         value may be quoted '...' or "..."; \n \t \r \b \s \\ \" \' escapes; '#' after the
 *     name                 value starts a comment unless quoted
 *     !include  FILE       another file (relative paths are taken from the including file's directory)
 *     !includedir DIR      every *.cnf in DIR, in name order
 * Precedence: files in order (the default list, or --defaults-file alone; then --defaults-extra-file), then the
 * command line; the caller applies the items in order, so the last one wins.
 * Errors name the option and where it came from: "unknown variable 'foo=1' at /etc/x.cnf:12",
 * "unknown option '--foo' (command line)".
 */
#ifndef STRATA_CONFIG_H
#define STRATA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/buf.h"

typedef enum config_arg {
    CONFIG_ARG_NONE,     /* a flag: --help, --version; "--help=1" is an error */
    CONFIG_ARG_BOOL,     /* ON/OFF: --x, --x=0|1|on|off|true|false, --skip-x, --disable-x, --enable-x */
    CONFIG_ARG_REQUIRED, /* --x=v or --x v */
    CONFIG_ARG_OPTIONAL, /* --x or --x=v (never takes the next argument) */
} config_arg_t;

typedef struct config_opt {
    const char *name;   /* canonical, with '_' (max_connections) */
    config_arg_t arg;
    char short_name;    /* 'P' for -P, 0 for none */
    const char *help;   /* one line for --help; NULL hides the option */
    const char *dflt;   /* shown in --help, may be NULL */
    const void *user;   /* the caller's (e.g. the sysvar_def_t) */
} config_opt_t;

typedef struct config_item {
    const config_opt_t *opt;
    const char *name;   /* opt->name */
    char *value;        /* BOOL: "ON"/"OFF"; REQUIRED: the text; NONE/OPTIONAL without value: NULL */
    bool negated;       /* given as --skip-x / --disable-x (for BOOL the value is "OFF" too) */
    char *raw;          /* as written, without "--": "skip-name-resolve", "max_connections=200" */
    bool from_file;
    char source[300];   /* "/etc/strata/my.cnf:12" or "command line" */
} config_item_t;

typedef struct config {
    config_item_t *items;
    size_t n, cap;
    bool no_defaults;
    bool print_defaults;
    char *defaults_file;        /* --defaults-file, if given */
    char *defaults_extra_file;  /* --defaults-extra-file, if given */
    char **warnings;            /* e.g. unknown --loose- options; the caller logs them */
    size_t nwarnings;
    char errmsg[512];           /* set when config_load fails */
} config_t;

/* Reads default_files (missing ones are skipped; "~/" is $HOME) unless --no-defaults or --defaults-file, the
 * extra file, then argv[1..].  groups: NULL-terminated list of group names to read ("mysqld", "server",
 * "stratad", ...); default_files: NULL-terminated.  Returns 0, or -1 with c->errmsg set.  Call config_free
 * in both cases. */
int config_load(config_t *c, int argc, char **argv, const config_opt_t *opts, size_t nopts,
                const char *const *groups, const char *const *default_files);
void config_free(config_t *c);

/* Last item for an option name ('-' or '_'), NULL if not given. */
const config_item_t *config_get(const config_t *c, const char *name);

/* --print-defaults: the options read from files as written, one line of arguments after a header, as mysqld:
 *   stratad would have been started with the following arguments:
 *   --port=3310 --skip-name-resolve --max_connections=200 */
void config_print_defaults(const config_t *c, const char *progname, FILE *out);

/* --help: one entry per option with help text, sorted by name:
 *   "  -P, --port=#             Port number to use ... (default: 3306)" */
void config_help(const config_opt_t *opts, size_t nopts, buf_t *out);

/* "16M" -> 16777216: decimal or 0x hex with an optional K/M/G/T/P/E suffix (powers of 1024), as mysqld
 * accepts.  Returns 0, or -1 if s is not such a number. */
int config_parse_size(const char *s, unsigned long long *out);

#endif
