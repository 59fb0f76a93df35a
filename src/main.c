/* stratad entry point (placeholder until the server lands in this file). */
#include "util/util.h"
int main(void) { log_note("stratad"); return 0; }
