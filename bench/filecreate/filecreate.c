/*
 * bench/filecreate: how long creating a data or undo file takes, by method (seed 002: MySQL Cluster 6.3.19
 * went from 32 KiB to 512 KiB writes when creating undo and data files and got faster).  For each method the
 * file is created, filled to SIZE and fdatasync'ed, then removed; the figure is the median of RUNS.
 *   methods: fallocate (what strata's data and undo files use: space.c dfile_create, undo.c file_create),
 *            ftruncate (sparse: what log_sparse does for the redo log), and zero-filled writes of 32K..1M blocks
 *            (what strata falls back to where the file system has no fallocate: 1 MiB).
 * Build and run:  cc -O2 -o /tmp/filecreate bench/filecreate/filecreate.c && /tmp/filecreate DIR [MiB] [runs]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* block 0: fallocate; block 1: ftruncate (sparse); else zero writes of that many bytes. */
static double create(const char *path, uint64_t size, size_t block)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0640);
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    static char *z;
    if (!z)
        z = calloc(1, 1 << 20);
    double t0 = now();
    if (block == 0) {
        if (posix_fallocate(fd, 0, (off_t)size)) {
            fprintf(stderr, "fallocate failed\n");
            exit(1);
        }
    } else if (block == 1) {
        if (ftruncate(fd, (off_t)size))
            exit(1);
    } else {
        for (uint64_t off = 0; off < size; off += block)
            if (pwrite(fd, z, block, (off_t)off) != (ssize_t)block) {
                perror("pwrite");
                exit(1);
            }
    }
    if (fdatasync(fd))
        exit(1);
    double t = now() - t0;
    close(fd);
    unlink(path);
    return t;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [MiB=128] [runs=3]\n", argv[0]);
        return 2;
    }
    uint64_t mib = argc > 2 ? strtoull(argv[2], NULL, 10) : 128;
    int runs = argc > 3 ? atoi(argv[3]) : 3;
    char path[4096];
    snprintf(path, sizeof path, "%s/filecreate.%d.dat", argv[1], getpid());
    size_t blocks[] = {0, 1, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20};
    printf("| method | %llu MiB, median of %d (s) | MiB/s |\n|---|---|---|\n", (unsigned long long)mib, runs);
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        double t[32];
        for (int r = 0; r < runs && r < 32; r++)
            t[r] = create(path, mib << 20, blocks[i]);
        qsort(t, (size_t)runs, sizeof t[0], cmp);
        double m = t[runs / 2];
        char name[64];
        if (blocks[i] == 0)
            snprintf(name, sizeof name, "fallocate");
        else if (blocks[i] == 1)
            snprintf(name, sizeof name, "ftruncate (sparse)");
        else
            snprintf(name, sizeof name, "write %zu KiB blocks", blocks[i] >> 10);
        printf("| %s | %.3f | %.0f |\n", name, m, m > 0 ? (double)mib / m : 0.0);
        fflush(stdout);
    }
    return 0;
}
