/* Lookups into errors.def.  Codes are sparse, so a switch generated from the table does the mapping. */
#include "util/util.h"

const char *errors_sqlstate(int code)
{
    switch (code) {
#define ERR(name, c, state, msg) \
    case c:                      \
        return state;
#include "util/errors.def"
#undef ERR
    default:
        return "HY000";
    }
}

const char *errors_format(int code)
{
    switch (code) {
#define ERR(name, c, state, msg) \
    case c:                      \
        return msg;
#include "util/errors.def"
#undef ERR
    default:
        return "Unknown error";
    }
}
