/* Unit tests for the host error table behind max_connect_errors (session/session.c). */
#include "session/session.h"
#include "unit.h"

TEST(test_block_and_flush)
{
    server_t srv;
    server_init(&srv);
    sysvar_global_set_int(&srv.vars, SYSVAR_MAX_CONNECT_ERRORS, 3);
    CHECK(!server_host_blocked(&srv, "10.0.0.7"));
    server_host_error(&srv, "10.0.0.7");
    server_host_error(&srv, "10.0.0.7");
    CHECK(!server_host_blocked(&srv, "10.0.0.7"));
    server_host_ok(&srv, "10.0.0.7"); /* a successful login resets the count */
    for (int i = 0; i < 2; i++)
        server_host_error(&srv, "10.0.0.7");
    CHECK(!server_host_blocked(&srv, "10.0.0.7"));
    server_host_error(&srv, "10.0.0.7");
    CHECK(server_host_blocked(&srv, "10.0.0.7"));
    CHECK(!server_host_blocked(&srv, "10.0.0.8")); /* per host */
    server_hosts_flush(&srv);                       /* FLUSH HOSTS */
    CHECK(!server_host_blocked(&srv, "10.0.0.7"));
    server_free(&srv);
}

UNIT_MAIN(test_block_and_flush)
