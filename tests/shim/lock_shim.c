/*
 * An LD_PRELOAD library for tests/tools/lock_paths.py (Linux and glibc
 * only): it makes the output lock of `meshgen generate` fail the ways a real
 * machine can, on a machine where it never does (a file system without
 * flock, a directory that may be written but not read, as a user who is not
 * root).
 *
 *   MG_SHIM_FLOCK=ENOLCK|EOPNOTSUPP|ENOTSUP|EINVAL|EACCES
 *       every flock() fails with that errno, and does nothing;
 *   MG_SHIM_OPENDIR=EACCES|...
 *       every open() with O_DIRECTORY (meshgen opens a directory so only
 *       to lock it) fails with that errno;
 *   MG_SHIM_DELAY_MS=N
 *       a flock() that succeeds returns N milliseconds later, and each
 *       rename() waits N milliseconds first: the windows a race needs
 *       (between two locks of one run, between the renames of its files)
 *       grow from microseconds to ones a test can race in. Two runs that
 *       lock in opposite orders then deadlock nearly every time, and two
 *       unlocked runs into one directory mix their files;
 *   MG_SHIM_LOG=FILE
 *       each call it failed appends a line "flock ERRNO" or
 *       "opendir ERRNO PATH" to FILE, so the test knows the path ran.
 *
 * Everything else goes to libc unchanged. Nothing here is linked into
 * meshgen; the test build only.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/types.h>
#include <time.h>

/* The errno an environment variable names; 0 when unset or unknown. */
static int shim_errno(const char *var)
{
    static const struct {
        const char *name;
        int value;
    } names[] = {{"ENOLCK", ENOLCK}, {"EOPNOTSUPP", EOPNOTSUPP}, {"ENOTSUP", ENOTSUP},
                 {"EINVAL", EINVAL}, {"EACCES", EACCES},         {"EPERM", EPERM}};
    const char *v = getenv(var);
    size_t i;

    for (i = 0; v && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(v, names[i].name) == 0)
            return names[i].value;
    return 0;
}

/* One line to MG_SHIM_LOG: what failed, the errno's name, the path. The
 * log's own failure is ignored (the test then finds no line and fails). */
static void shim_log(const char *what, const char *var, const char *path)
{
    const char *log = getenv("MG_SHIM_LOG");
    FILE *f = log ? fopen(log, "a") : NULL;

    if (!f)
        return;
    fprintf(f, "%s %s%s%s\n", what, getenv(var), path ? " " : "", path ? path : "");
    fclose(f);
}

/* libc's own function of that name; memcpy, as ISO C has no cast from an
 * object pointer to a function pointer. */
static void shim_real(const char *name, void *fn, size_t size)
{
    void *sym = dlsym(RTLD_NEXT, name);

    memcpy(fn, &sym, size);
}

/* MG_SHIM_DELAY_MS milliseconds, or none. */
static void shim_delay(void)
{
    const char *v = getenv("MG_SHIM_DELAY_MS");
    long ms = v ? strtol(v, NULL, 10) : 0;
    struct timespec t = {ms / 1000, ms % 1000 * 1000000L};

    while (ms > 0 && nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

int flock(int fd, int op)
{
    int (*real)(int, int);
    int err = shim_errno("MG_SHIM_FLOCK");

    if (err) {
        shim_log("flock", "MG_SHIM_FLOCK", NULL);
        errno = err;
        return -1;
    }
    shim_real("flock", &real, sizeof real);
    if (real(fd, op) != 0)
        return -1;
    shim_delay();
    return 0;
}

int rename(const char *from, const char *to)
{
    int (*real)(const char *, const char *);

    shim_delay();
    shim_real("rename", &real, sizeof real);
    return real(from, to);
}

/* open and open64 (the same function on 64-bit glibc, two names). */
static int shim_open(const char *name, const char *path, int flags, mode_t mode)
{
    int (*real)(const char *, int, ...);
    int err = shim_errno("MG_SHIM_OPENDIR");

    if (err && (flags & O_DIRECTORY)) {
        shim_log("opendir", "MG_SHIM_OPENDIR", path);
        errno = err;
        return -1;
    }
    shim_real(name, &real, sizeof real);
    return real(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
    mode_t mode = 0;

    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return shim_open("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    mode_t mode = 0;

    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return shim_open("open64", path, flags, mode);
}
