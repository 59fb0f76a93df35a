/*
 * The stored-routine interpreter's seams with the session's statement execution (session box only):
 * sp_exec.c runs routines; exec.c runs their statements and expressions and calls into sp_exec.c for CALL and
 * for stored functions met in expressions.
 */
#ifndef STRATA_SESSION_SP_INT_H
#define STRATA_SESSION_SP_INT_H

#include "session/session.h"
#include "sql/sql.h"
#include "sql/exec/result.h"

typedef void (*sp_param_set_fn)(void *arg, uint32_t index, const value_t *v);

/* exec.c: one statement with its `?` read from params (a routine's variables, param_types their wire types as
 * COM_STMT_EXECUTE would send them: a select item's metadata); param_set, when set, receives
 * what a CALL of it writes to an OUT parameter given as `?`.  Returns as exec_stmt: 0 answered, > 0 answered
 * with an error, < 0 an error not yet answered. */
int session_sp_stmt(session_t *s, const sql_stmt_t *st, const value_t *params, const uint16_t *param_types, uint32_t n,
                    sp_param_set_fn param_set, void *arg, res_sink_t *sink, bool more);
/* exec.c: an expression without tables, `?` read from params. */
int session_sp_eval(session_t *s, const sql_expr_t *e, const value_t *params, uint32_t n, bool assign, value_t *out);
/* exec.c: SET @name = v */
void session_sp_uservar_set(session_t *s, const char *name, const value_t *v);

/* sp_exec.c: CALL with its arguments evaluated; is_var[i] says whether argument i can receive an OUT value,
 * out() writes it.  Returns as session_sp_stmt. */
int sp_call(session_t *s, const sql_call_stmt_t *c, const value_t *args, const bool *is_var, sp_param_set_fn out,
            void *out_arg, res_sink_t *sink, bool more);
/* sp_exec.c: a stored function's value (in a), or 1 when there is no such function. */
int sp_function_call(session_t *s, const sql_expr_t *call, const value_t *args, uint32_t nargs, arena_t *a,
                     bool nested, value_t *out);

/* sp_exec.c: forgets the session's parsed routines (connection end). */
void sp_cache_free(session_t *s);

/* sp_exec.c: runs trigger tr for one row (see there); 0, or < 0 an error in the session's diagnostics. */
struct cat_trigger;
int sp_trigger_fire(session_t *s, const struct cat_trigger *tr, sql_trg_row_t *row);

/* sp_exec.c: runs an event's body (as written, a routine body) in database db, its result sets dropped (the
 * scheduler's session, event_sched.c).  0, or < 0 an error in the session's diagnostics. */
int sp_event_run(session_t *s, const char *db, const char *name, const char *body);

#endif
