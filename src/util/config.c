/*
 * Options and option files (see config.h for the syntax).  Everything here runs once at start-up, so plain
 * linear lookups and small allocations are fine; the point is exact, well-placed error messages.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/config.h"
#include "util/util.h"

#define CONFIG_MAX_DEPTH 10 /* !include nesting, as MySQL */

static int cfg_err(config_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cfg_err(config_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->errmsg, sizeof c->errmsg, fmt, ap);
    va_end(ap);
    return -1;
}

static void cfg_warn(config_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cfg_warn(config_t *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->warnings = mem_realloc(c->warnings, (c->nwarnings + 1) * sizeof *c->warnings);
    c->warnings[c->nwarnings++] = mem_strdup(msg);
}

/* Compares an option name (len n, '-' or '_') with a canonical one. */
static bool cfg_name_eq(const char *s, size_t n, const char *canon)
{
    for (size_t i = 0; i < n; i++) {
        char a = s[i] == '-' ? '_' : (char)tolower((unsigned char)s[i]);
        if (a != canon[i])
            return false;
        if (!canon[i])
            return false;
    }
    return canon[n] == 0;
}

static const config_opt_t *cfg_find(const config_opt_t *opts, size_t nopts, const char *s, size_t n)
{
    for (size_t i = 0; i < nopts; i++)
        if (cfg_name_eq(s, n, opts[i].name))
            return &opts[i];
    return NULL;
}

static bool cfg_prefix(const char *s, size_t n, const char *prefix, size_t *plen)
{
    size_t k = strlen(prefix);
    if (n <= k)
        return false;
    for (size_t i = 0; i < k; i++) {
        char a = s[i] == '_' ? '-' : (char)tolower((unsigned char)s[i]);
        if (a != prefix[i])
            return false;
    }
    *plen = k;
    return true;
}

int config_parse_size(const char *s, unsigned long long *out)
{
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno == ERANGE)
        return -1;
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    case 'P': shift = 50; break;
    case 'E': shift = 60; break;
    default: break;
    }
    if (shift) {
        if (v > (~0ULL >> shift))
            return -1;
        v <<= shift;
        end++;
    }
    if (*end)
        return -1;
    *out = v;
    return 0;
}

static int cfg_bool(const char *v)
{
    if (!strcasecmp(v, "1") || !strcasecmp(v, "on") || !strcasecmp(v, "true") || !strcasecmp(v, "yes"))
        return 1;
    if (!strcasecmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "false") || !strcasecmp(v, "no"))
        return 0;
    return -1;
}

/* How an option was written, for messages: "--foo=1" on the command line, "foo=1" in a file. */
static void cfg_spelling(char *buf, size_t n, bool from_file, const char *name, size_t nlen, const char *value)
{
    snprintf(buf, n, "%s%.*s%s%s", from_file ? "" : "--", (int)nlen, name, value ? "=" : "", value ? value : "");
}

/* Resolves one option occurrence into an item.  name/nlen as written (may carry loose-/skip- prefixes);
 * value NULL if none was given.  *used_next is set when a REQUIRED option took `next` as its value. */
static int cfg_add(config_t *c, const config_opt_t *opts, size_t nopts, const char *name, size_t nlen,
                   const char *value, const char *next, bool *used_next, bool from_file, const char *source)
{
    char spelled[300];
    cfg_spelling(spelled, sizeof spelled, from_file, name, nlen, value);
    const char *where = from_file ? " at " : " (";
    const char *where_end = from_file ? "" : ")";
    bool loose = false;
    size_t k;
    if (cfg_prefix(name, nlen, "loose-", &k)) {
        loose = true;
        name += k;
        nlen -= k;
    }
    bool negated = false, enabled = false;
    const config_opt_t *opt = cfg_find(opts, nopts, name, nlen);
    if (!opt) {
        if (cfg_prefix(name, nlen, "skip-", &k) || cfg_prefix(name, nlen, "disable-", &k))
            negated = true;
        else if (cfg_prefix(name, nlen, "enable-", &k))
            enabled = true;
        if (negated || enabled)
            opt = cfg_find(opts, nopts, name + k, nlen - k);
    }
    if (!opt) {
        if (loose) {
            cfg_warn(c, "unknown %s '%s'%s%s%s ignored", from_file ? "variable" : "option", spelled, where,
                     source, where_end);
            return 0;
        }
        return cfg_err(c, "unknown %s '%s'%s%s%s", from_file ? "variable" : "option", spelled, where, source,
                       where_end);
    }
    char *v = NULL;
    switch (opt->arg) {
    case CONFIG_ARG_NONE:
        if (value)
            return cfg_err(c, "option '%s' does not take an argument%s%s%s", spelled, where, source, where_end);
        break;
    case CONFIG_ARG_BOOL:
        if (negated || enabled) {
            if (value)
                return cfg_err(c, "option '%s' does not take an argument%s%s%s", spelled, where, source,
                               where_end);
            v = mem_strdup(negated ? "OFF" : "ON");
        } else if (!value) {
            v = mem_strdup("ON");
        } else {
            int b = cfg_bool(value);
            if (b < 0)
                return cfg_err(c, "option '%s' requires a boolean value (ON, OFF, 1, 0)%s%s%s", spelled, where,
                               source, where_end);
            v = mem_strdup(b ? "ON" : "OFF");
        }
        break;
    case CONFIG_ARG_REQUIRED:
        if (negated || enabled) {
            if (value)
                return cfg_err(c, "option '%s' does not take an argument%s%s%s", spelled, where, source,
                               where_end);
            break;
        }
        if (!value && next && !from_file && strncmp(next, "--", 2) != 0) {
            value = next;
            *used_next = true;
        }
        if (!value)
            return cfg_err(c, "option '%s' requires an argument%s%s%s", spelled, where, source, where_end);
        v = mem_strdup(value);
        break;
    case CONFIG_ARG_OPTIONAL:
        if (value && (negated || enabled))
            return cfg_err(c, "option '%s' does not take an argument%s%s%s", spelled, where, source, where_end);
        v = value ? mem_strdup(value) : NULL;
        break;
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->items = mem_realloc(c->items, c->cap * sizeof *c->items);
    }
    config_item_t *it = &c->items[c->n++];
    memset(it, 0, sizeof *it);
    it->opt = opt;
    it->name = opt->name;
    it->value = v;
    it->negated = negated;
    it->raw = mem_strdup(spelled + (from_file ? 0 : 2));
    it->from_file = from_file;
    snprintf(it->source, sizeof it->source, "%s", source);
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Option files */

static char *cfg_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

/* Value text after '=': quotes, escapes, trailing comment.  Rewrites in place; returns the value. */
static char *cfg_value(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char quote = 0;
    if (*s == '\'' || *s == '"')
        quote = *s++;
    char *out = s, *w = s;
    for (char *r = s; *r; r++) {
        if (quote && *r == quote)
            break;
        if (!quote && *r == '#')
            break;
        if (*r == '\\' && r[1]) {
            r++;
            switch (*r) {
            case 'n': *w++ = '\n'; break;
            case 't': *w++ = '\t'; break;
            case 'r': *w++ = '\r'; break;
            case 'b': *w++ = '\b'; break;
            case 's': *w++ = ' '; break;
            case '\\': *w++ = '\\'; break;
            case '"': *w++ = '"'; break;
            case '\'': *w++ = '\''; break;
            default: /* unknown escapes keep the backslash (Windows paths) */
                *w++ = '\\';
                *w++ = *r;
                break;
            }
            continue;
        }
        *w++ = *r;
    }
    *w = 0;
    if (!quote) {
        while (w > out && isspace((unsigned char)w[-1]))
            *--w = 0;
    }
    return out;
}

typedef struct cfg_ctx {
    config_t *c;
    const config_opt_t *opts;
    size_t nopts;
    const char *const *groups;
} cfg_ctx_t;

static int cfg_read_file(cfg_ctx_t *x, const char *path, int depth, bool must_exist);

static void cfg_resolve(char *out, size_t n, const char *base_file, const char *path)
{
    if (path[0] == '/' || !strchr(base_file, '/')) {
        snprintf(out, n, "%s", path);
        return;
    }
    const char *slash = strrchr(base_file, '/');
    snprintf(out, n, "%.*s/%s", (int)(slash - base_file), base_file, path);
}

static int cfg_cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int cfg_read_dir(cfg_ctx_t *x, const char *dir, int depth, const char *source)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return cfg_err(x->c, "cannot open directory '%s' (!includedir at %s): %s", dir, source, strerror(errno));
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(dp))) {
        size_t len = strlen(de->d_name);
        if (len > 4 && strcmp(de->d_name + len - 4, ".cnf") == 0) {
            names = mem_realloc(names, (n + 1) * sizeof *names);
            names[n++] = mem_strdup(de->d_name);
        }
    }
    closedir(dp);
    qsort(names, n, sizeof *names, cfg_cmp_str);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (rc == 0) {
            char path[4096];
            if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= (int)sizeof path)
                rc = cfg_err(x->c, "path too long in %s", dir);
            else
                rc = cfg_read_file(x, path, depth, true);
        }
        mem_free(names[i]);
    }
    mem_free(names);
    return rc;
}

static bool cfg_group_wanted(cfg_ctx_t *x, const char *g)
{
    for (const char *const *p = x->groups; p && *p; p++)
        if (strcasecmp(*p, g) == 0)
            return true;
    return false;
}

static int cfg_read_file(cfg_ctx_t *x, const char *path, int depth, bool must_exist)
{
    config_t *c = x->c;
    if (depth > CONFIG_MAX_DEPTH)
        return cfg_err(c, "too many nested !include levels reading '%s'", path);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (!must_exist && errno == ENOENT)
            return 0;
        return cfg_err(c, "could not open option file '%s': %s", path, strerror(errno));
    }
    char line[8192];
    int lineno = 0, rc = 0;
    bool in_group = false, any_group = false;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        char source[300];
        snprintf(source, sizeof source, "%s:%d", path, lineno);
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            rc = cfg_err(c, "line too long at %s", source);
            break;
        }
        char *s = cfg_trim(line);
        if (!*s || *s == '#' || *s == ';')
            continue;
        if (*s == '!') {
            bool is_dir = strncmp(s, "!includedir", 11) == 0 && (isspace((unsigned char)s[11]));
            bool is_inc = !is_dir && strncmp(s, "!include", 8) == 0 && isspace((unsigned char)s[8]);
            if (!is_dir && !is_inc) {
                rc = cfg_err(c, "unknown directive '%s' at %s", s, source);
                break;
            }
            char *arg = cfg_trim(s + (is_dir ? 11 : 8));
            if (!*arg) {
                rc = cfg_err(c, "%s needs a %s name at %s", is_dir ? "!includedir" : "!include",
                             is_dir ? "directory" : "file", source);
                break;
            }
            char full[4096];
            cfg_resolve(full, sizeof full, path, arg);
            rc = is_dir ? cfg_read_dir(x, full, depth + 1, source) : cfg_read_file(x, full, depth + 1, true);
            continue;
        }
        if (*s == '[') {
            char *e = strchr(s, ']');
            if (!e) {
                rc = cfg_err(c, "wrong group definition at %s", source);
                break;
            }
            *e = 0;
            char *g = cfg_trim(s + 1);
            in_group = cfg_group_wanted(x, g);
            any_group = true;
            continue;
        }
        if (!any_group) {
            rc = cfg_err(c, "found option without preceding group at %s", source);
            break;
        }
        if (!in_group)
            continue;
        char *eq = strchr(s, '=');
        char *value = NULL;
        if (eq) {
            *eq = 0;
            value = cfg_value(eq + 1);
        } else {
            /* "name   # comment" */
            char *hash = strchr(s, '#');
            if (hash)
                *hash = 0;
        }
        char *name = cfg_trim(s);
        if (!*name) {
            rc = cfg_err(c, "option without a name at %s", source);
            break;
        }
        bool used = false;
        rc = cfg_add(c, x->opts, x->nopts, name, strlen(name), value, NULL, &used, true, source);
    }
    fclose(f);
    return rc;
}

static void cfg_expand_home(char *out, size_t n, const char *path)
{
    const char *home = getenv("HOME");
    if (path[0] == '~' && path[1] == '/' && home)
        snprintf(out, n, "%s%s", home, path + 1);
    else
        snprintf(out, n, "%s", path);
}

/* ------------------------------------------------------------------------------------------------------------ */

static const char *cfg_arg_value(const char *arg, const char *opt)
{
    size_t n = strlen(opt);
    if (strncmp(arg, opt, n) == 0 && arg[n] == '=')
        return arg + n + 1;
    return NULL;
}

int config_load(config_t *c, int argc, char **argv, const config_opt_t *opts, size_t nopts,
                const char *const *groups, const char *const *default_files)
{
    memset(c, 0, sizeof *c);
    /* The file-selection options first, wherever they are (mysqld wants them first; accepting them anywhere
     * costs nothing). */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--no-defaults") == 0)
            c->no_defaults = true;
        else if (strcmp(a, "--print-defaults") == 0)
            c->print_defaults = true;
        else if ((v = cfg_arg_value(a, "--defaults-file"))) {
            mem_free(c->defaults_file);
            c->defaults_file = mem_strdup(v);
        } else if ((v = cfg_arg_value(a, "--defaults-extra-file"))) {
            mem_free(c->defaults_extra_file);
            c->defaults_extra_file = mem_strdup(v);
        }
    }
    cfg_ctx_t x = {.c = c, .opts = opts, .nopts = nopts, .groups = groups};
    if (!c->no_defaults) {
        if (c->defaults_file) {
            if (cfg_read_file(&x, c->defaults_file, 0, true))
                return -1;
        } else {
            for (const char *const *f = default_files; f && *f; f++) {
                char path[4096];
                cfg_expand_home(path, sizeof path, *f);
                if (cfg_read_file(&x, path, 0, false))
                    return -1;
            }
        }
        if (c->defaults_extra_file && cfg_read_file(&x, c->defaults_extra_file, 0, true))
            return -1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--no-defaults") == 0 || strcmp(a, "--print-defaults") == 0 ||
            cfg_arg_value(a, "--defaults-file") || cfg_arg_value(a, "--defaults-extra-file"))
            continue;
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        bool used = false;
        if (a[0] == '-' && a[1] == '-' && a[2]) {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
            if (cfg_add(c, opts, nopts, name, nlen, eq ? eq + 1 : NULL, next, &used, false, "command line"))
                return -1;
        } else if (a[0] == '-' && a[1] && a[1] != '-') {
            const config_opt_t *opt = NULL;
            for (size_t k = 0; k < nopts; k++)
                if (opts[k].short_name && opts[k].short_name == a[1])
                    opt = &opts[k];
            if (!opt)
                return cfg_err(c, "unknown option '-%c' (command line)", a[1]);
            const char *val = a[2] ? a + 2 : NULL;
            if (opt->arg == CONFIG_ARG_NONE && val)
                return cfg_err(c, "option '-%c' does not take an argument (command line)", a[1]);
            if (cfg_add(c, opts, nopts, opt->name, strlen(opt->name), val, next, &used, false, "command line"))
                return -1;
        } else {
            return cfg_err(c, "unexpected argument '%s' (command line); options start with --", a);
        }
        if (used)
            i++;
    }
    return 0;
}

void config_free(config_t *c)
{
    for (size_t i = 0; i < c->n; i++) {
        mem_free(c->items[i].value);
        mem_free(c->items[i].raw);
    }
    mem_free(c->items);
    for (size_t i = 0; i < c->nwarnings; i++)
        mem_free(c->warnings[i]);
    mem_free(c->warnings);
    mem_free(c->defaults_file);
    mem_free(c->defaults_extra_file);
    memset(c, 0, sizeof *c);
}

const config_item_t *config_get(const config_t *c, const char *name)
{
    for (size_t i = c->n; i-- > 0;)
        if (cfg_name_eq(name, strlen(name), c->items[i].name))
            return &c->items[i];
    return NULL;
}

static void cfg_dashed(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s", name);
    for (char *p = out; *p; p++)
        if (*p == '_')
            *p = '-';
}

void config_print_defaults(const config_t *c, const char *progname, FILE *out)
{
    fprintf(out, "%s would have been started with the following arguments:\n", progname);
    bool first = true;
    for (size_t i = 0; i < c->n; i++) {
        const config_item_t *it = &c->items[i];
        if (!it->from_file)
            continue;
        fprintf(out, "%s--%s", first ? "" : " ", it->raw);
        first = false;
    }
    fputc('\n', out);
}

static int cfg_cmp_opt(const void *a, const void *b)
{
    return strcmp((*(const config_opt_t *const *)a)->name, (*(const config_opt_t *const *)b)->name);
}

void config_help(const config_opt_t *opts, size_t nopts, buf_t *out)
{
    const config_opt_t **v = mem_alloc((nopts ? nopts : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < nopts; i++)
        if (opts[i].help)
            v[n++] = &opts[i];
    qsort(v, n, sizeof *v, cfg_cmp_opt);
    for (size_t i = 0; i < n; i++) {
        const config_opt_t *o = v[i];
        char d[256], left[300];
        cfg_dashed(d, sizeof d, o->name);
        const char *arg = o->arg == CONFIG_ARG_REQUIRED ? "=#" : o->arg == CONFIG_ARG_OPTIONAL ? "[=#]" : "";
        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s", o->short_name, d, arg);
        else
            snprintf(left, sizeof left, "--%s%s", d, arg);
        if (strlen(left) > 34)
            buf_printf(out, "  %s\n  %-34s %s", left, "", o->help);
        else
            buf_printf(out, "  %-34s %s", left, o->help);
        if (o->dflt && o->dflt[0] && strlen(o->dflt) < 60)
            buf_printf(out, " (default: %s)", o->dflt);
        buf_append_byte(out, '\n');
    }
    mem_free(v);
}
