/*
 * The files SELECT ... INTO OUTFILE / DUMPFILE writes and LOAD DATA INFILE reads on the server.
 *
 * A relative name is under the data directory: in the current database's directory when it has one there,
 * else the data directory itself (MariaDB's fn_format(name, datadir/db)).  secure_file_priv: NULL (MariaDB's
 * default) or empty, every path; a directory, only what lies in it once both are resolved (symbolic links and
 * `..` cannot step out): 1290 elsewhere.  The checks run on the resolved directory of the file, so a file that does not exist
 * yet (OUTFILE) is checked the same way as one that does.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sql/exec/file.h"
#include "sql/exec/query_int.h"
#include "util/util.h"

static const char *sysvar_text(sql_exec_ctx_t *x, const char *name, bool *is_null)
{
    value_t v;
    *is_null = true;
    if (!x->cb || !x->cb->sysvar_get)
        return NULL;
    diag_t scratch;
    diag_init(&scratch, 2);
    int rc = x->cb->sysvar_get(x->cb_user, SQL_SCOPE_GLOBAL, NULL, name, &v, &scratch);
    diag_free(&scratch);
    if (rc || v.type == VAL_NULL)
        return NULL;
    size_t n;
    const char *t = value_to_text(x->arena, &v, &n);
    *is_null = false;
    return arena_strndup(x->arena, t, n);
}

/* The absolute path of name; NULL with 1290 pushed when secure_file_priv forbids it. */
static char *file_path(sql_exec_ctx_t *x, const char *name)
{
    char *path;
    if (name[0] == '/') {
        path = arena_strdup(x->arena, name);
    } else {
        bool nul;
        const char *dd = sysvar_text(x, "datadir", &nul);
        if (!dd || !*dd)
            dd = ".";
        size_t dl = strlen(dd);
        const char *sep = dl && dd[dl - 1] == '/' ? "" : "/";
        struct stat st;
        char *dbdir = x->db ? arena_printf(x->arena, "%s%s%s", dd, sep, x->db) : NULL;
        if (dbdir && stat(dbdir, &st) == 0 && S_ISDIR(st.st_mode))
            path = arena_printf(x->arena, "%s/%s", dbdir, name);
        else
            path = arena_printf(x->arena, "%s%s%s", dd, sep, name);
    }
    bool nul;
    const char *priv = sysvar_text(x, "secure_file_priv", &nul);
    if (!priv || !*priv) /* NULL (MariaDB's default) or empty: no restriction */
        return path;
    /* the directory the file is in, resolved, must lie inside the resolved secure_file_priv */
    char rpriv[PATH_MAX], rdir[PATH_MAX];
    char *dir = arena_strdup(x->arena, path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = 0;
    else if (slash)
        *slash = 0;
    if (!realpath(priv, rpriv) || !realpath(dir, rdir)) {
        diag_error(x->diag, ER_OPTION_PREVENTS_STATEMENT, "--secure-file-priv");
        return NULL;
    }
    size_t pl = strlen(rpriv);
    while (pl > 1 && rpriv[pl - 1] == '/')
        rpriv[--pl] = 0;
    if (!(strncmp(rdir, rpriv, pl) == 0 && (rdir[pl] == 0 || rdir[pl] == '/' || pl == 1))) {
        diag_error(x->diag, ER_OPTION_PREVENTS_STATEMENT, "--secure-file-priv");
        return NULL;
    }
    return path;
}

int exec_file_create(sql_exec_ctx_t *x, const char *name, int *fd, const char **pathp)
{
    char *path = file_path(x, name);
    if (!path)
        return -x->diag->error_code;
    int f = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (f < 0) {
        if (errno == EEXIST)
            return diag_error(x->diag, ER_FILE_EXISTS_ERROR, path);
        int e = errno;
        return diag_error(x->diag, ER_CANT_CREATE_FILE, path, e, strerror(e));
    }
    *fd = f;
    *pathp = path;
    return 0;
}

int exec_file_open_read(sql_exec_ctx_t *x, const char *name, int *fd, const char **pathp)
{
    char *path = file_path(x, name);
    if (!path)
        return -x->diag->error_code;
    struct stat st;
    if (stat(path, &st) != 0) { /* MariaDB's mysys error EE_STAT */
        int e = errno;
        return diag_error(x->diag, EE_STAT, path, e, strerror(e));
    }
    /* outside the data directory a file must be readable by all (MariaDB's rule against reading what only
     * the server's account may) */
    bool nul;
    const char *dd = sysvar_text(x, "datadir", &nul);
    char rdd[PATH_MAX], rpath[PATH_MAX];
    bool inside = dd && realpath(dd, rdd) && realpath(path, rpath) && strncmp(rpath, rdd, strlen(rdd)) == 0;
    if (!inside && (!(st.st_mode & S_IROTH) || !S_ISREG(st.st_mode)) && !S_ISFIFO(st.st_mode))
        return diag_error(x->diag, ER_TEXTFILE_NOT_READABLE, path);
    int f = open(path, O_RDONLY | O_CLOEXEC);
    if (f < 0) {
        int e = errno;
        return diag_error(x->diag, ER_FILE_NOT_FOUND, path, e, strerror(e));
    }
    *fd = f;
    *pathp = path;
    return 0;
}
