/*
 * The dashboard's files (src/monitor/www/), built into the binary with the assembler's .incbin, so the server
 * needs no asset directory at run time and serves exactly what it was built with.  The Makefile makes this
 * object depend on every file in www/ (the paths are relative to the repository root, where make runs).
 * Each blob is followed by a NUL, not counted in its length (sym_len, a size_t the assembler computes).
 */
#include <stddef.h>

#define SITE_ASSET(sym, file)                                                                                   \
    __asm__(".section .rodata\n"                                                                                \
            ".global " #sym "\n"                                                                                \
            ".balign 16\n" #sym ":\n"                                                                           \
            ".incbin \"" file "\"\n" #sym "_end:\n"                                                             \
            ".byte 0\n"                                                                                         \
            ".global " #sym "_len\n"                                                                            \
            ".balign 8\n" #sym "_len:\n"                                                                        \
            ".quad " #sym "_end - " #sym "\n"                                                                   \
            ".previous\n");

SITE_ASSET(site_index_html, "src/monitor/www/index.html")
SITE_ASSET(site_app_js, "src/monitor/www/app.js")
SITE_ASSET(site_style_css, "src/monitor/www/style.css")
