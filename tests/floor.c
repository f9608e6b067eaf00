/*
 * floor - the physical floor the Qvfs benchmarks are measured against.
 *
 *   floor list DIR      readdir (getdents64) + fstatat(dirfd, name, AT_SYMLINK_NOFOLLOW)
 *                       per entry; keeps name, size, mtime (s + ns), mode, uid and gid of
 *                       every entry in a compact array (names in one growing arena,
 *                       fixed-size records in one growing array).
 *   floor listrec DIR   the same over a whole tree, walked with fts(3) FTS_PHYSICAL; every
 *                       entry is kept (the root included), each record refers to its parent.
 *   floor stat N FILE   N statx(2) calls on FILE.
 *
 * Each prints one line for tests/bench.sh:
 *   entries=N wall_ms=X peak_rss_kb=Y
 * wall_ms runs from a constructor that executes before main (as close to process start
 * as a program can get without the kernel's help) to the end of the work; peak_rss_kb
 * is getrusage(RUSAGE_SELF).ru_maxrss.
 *
 * Plain C11 + POSIX/glibc; warning-free with -Wall -Wextra.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static struct timespec g_start;

__attribute__((constructor(101))) static void floor_start_clock(void)
{
    clock_gettime(CLOCK_MONOTONIC, &g_start);
}

static double elapsed_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - g_start.tv_sec) * 1e3 + (double)(now.tv_nsec - g_start.tv_nsec) / 1e6;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return ru.ru_maxrss; /* kilobytes on Linux */
}

static void report(uint64_t entries)
{
    double ms = elapsed_ms();
    printf("entries=%" PRIu64 " wall_ms=%.3f peak_rss_kb=%ld\n", entries, ms, peak_rss_kb());
    fflush(stdout);
}

static void die(const char *what, const char *arg)
{
    fprintf(stderr, "floor: %s %s: %s\n", what, arg ? arg : "", strerror(errno));
    exit(1);
}

/* ---- the compact store -------------------------------------------------------------- */

/* 40 bytes per record, plus the name and its NUL in the arena. */
struct rec {
    int64_t size;
    int64_t mtime_s;
    uint32_t mtime_ns;
    uint32_t mode;
    uint32_t uid;
    uint32_t gid;
    uint32_t name_off; /* into the arena; the arena is capped at 4 GiB */
    uint32_t parent;   /* record index of the parent directory (listrec), else 0 */
};

struct store {
    struct rec *recs;
    size_t n, cap;
    char *arena;
    size_t used, acap;
};

static void *grow(void *p, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : first;
    while (c < need)
        c *= 2;
    void *q = realloc(p, c * elem);
    if (!q) {
        fprintf(stderr, "floor: out of memory\n");
        exit(1);
    }
    *cap = c;
    return q;
}

static void store_free(struct store *s)
{
    free(s->recs);
    free(s->arena);
}

static void store_add(struct store *s, const char *name, size_t len, const struct stat *st, uint32_t parent)
{
    if (s->used + len + 1 > UINT32_MAX) {
        fprintf(stderr, "floor: name arena over 4 GiB\n");
        exit(1);
    }
    s->arena = grow(s->arena, &s->acap, s->used + len + 1, 1, 64 * 1024);
    s->recs = grow(s->recs, &s->cap, s->n + 1, sizeof *s->recs, 1024);
    memcpy(s->arena + s->used, name, len + 1);
    struct rec *r = &s->recs[s->n++];
    r->size = (int64_t)st->st_size;
    r->mtime_s = (int64_t)st->st_mtim.tv_sec;
    r->mtime_ns = (uint32_t)st->st_mtim.tv_nsec;
    r->mode = (uint32_t)st->st_mode;
    r->uid = (uint32_t)st->st_uid;
    r->gid = (uint32_t)st->st_gid;
    r->name_off = (uint32_t)s->used;
    r->parent = parent;
    s->used += len + 1;
}

/* Read the kept data back so the work cannot be optimised away and the pages are real. */
static uint64_t store_checksum(const struct store *s)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < s->n; ++i)
        sum += (uint64_t)s->recs[i].size + s->recs[i].mode + (unsigned char)s->arena[s->recs[i].name_off];
    return sum;
}

static volatile uint64_t g_sink;

/* ---- floor list DIR ----------------------------------------------------------------- */

static int cmd_list(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        die("opendir", path);
    int dfd = dirfd(d);
    struct store s = {0};
    struct stat st;
    struct dirent *de;
    errno = 0;
    while ((de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0)))
            continue;
        if (fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT) { /* vanished between getdents and stat */
                errno = 0;
                continue;
            }
            die("fstatat", n);
        }
        store_add(&s, n, strlen(n), &st, 0);
        errno = 0;
    }
    if (errno != 0)
        die("readdir", path);
    closedir(d);
    g_sink = store_checksum(&s);
    report(s.n);
    store_free(&s); /* kept until the figures were taken */
    return 0;
}

/* ---- floor listrec DIR -------------------------------------------------------------- */

static int cmd_listrec(const char *path)
{
    char *roots[] = {(char *)path, NULL};
    FTS *fts = fts_open(roots, FTS_PHYSICAL, NULL);
    if (!fts)
        die("fts_open", path);
    struct store s = {0};
    unsigned long errors = 0;
    FTSENT *e;
    errno = 0;
    while ((e = fts_read(fts)) != NULL) {
        switch (e->fts_info) {
        case FTS_DP: /* post-order visit of a directory already kept */
            continue;
        case FTS_DNR:
        case FTS_ERR:
        case FTS_NS:
            ++errors;
            fprintf(stderr, "floor: %s: %s\n", e->fts_path, strerror(e->fts_errno));
            continue;
        default:
            break;
        }
        uint32_t parent = e->fts_level > 0 ? (uint32_t)e->fts_parent->fts_number : 0;
        if (e->fts_info == FTS_D)
            e->fts_number = (long)s.n;
        store_add(&s, e->fts_name, e->fts_namelen, e->fts_statp, parent);
    }
    if (errno != 0)
        die("fts_read", path);
    fts_close(fts);
    g_sink = store_checksum(&s);
    report(s.n);
    store_free(&s); /* kept until the figures were taken */
    return errors ? 1 : 0;
}

/* ---- floor stat N FILE -------------------------------------------------------------- */

static int cmd_stat(const char *count, const char *file)
{
    char *end = NULL;
    unsigned long long n = strtoull(count, &end, 10);
    if (!end || *end || n == 0) {
        fprintf(stderr, "floor: bad count %s\n", count);
        return 2;
    }
    struct statx stx;
    uint64_t sum = 0;
    for (unsigned long long i = 0; i < n; ++i) {
        if (statx(AT_FDCWD, file, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &stx) != 0)
            die("statx", file);
        sum += stx.stx_size + stx.stx_mtime.tv_nsec;
    }
    g_sink = sum;
    report(n);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: floor list DIR | floor listrec DIR | floor stat N FILE\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "list") == 0)
        return cmd_list(argv[2]);
    if (argc == 3 && strcmp(argv[1], "listrec") == 0)
        return cmd_listrec(argv[2]);
    if (argc == 4 && strcmp(argv[1], "stat") == 0)
        return cmd_stat(argv[2], argv[3]);
    return usage();
}
