/*
 * mg_write_changed's directory locks (gen/io.c, docs/reference.md "Files
 * and streams") on every way out of a write of three files in two
 * directories: written, a directory missing, a depfile that is one of the
 * pair (EEXIST), a FIFO that no process reads (ENXIO), and the pair's
 * directory reached through a link and "..". Then a depfile that names
 * one of this process's descriptors (/proc/self/fd/N through a linked
 * directory, /dev/fd/N through a link): written through the descriptor
 * at its offset, the file it is open on kept; refused (EBADF) when the
 * descriptor is not open for writing and (EEXIST) when it is open on the
 * .c, nothing written. After each, the process holds
 * exactly the descriptors it held before (/proc/self/fd; skipped where
 * there is none), and a new open of each directory takes its flock at once
 * (LOCK_NB): a lock left held, or a descriptor left open, fails here.
 * Everything happens in a private temporary directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <meshgen/gen.h>

static char root[512];

static const char *at(const char *name)
{
    static char path[4][640];
    static int next;
    char *p = path[next++ % 4];

    snprintf(p, sizeof path[0], "%s/%s", root, name);
    return p;
}

/* Open descriptors of this process, or -1 without /proc. */
static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;

    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory stream's own */
}

/* Whether a new open of dir takes its exclusive flock without waiting. */
static int lock_free(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ok;

    if (fd < 0)
        return 0;
    ok = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return ok;
}

static int exists(const char *name)
{
    struct stat st;
    return lstat(at(name), &st) == 0;
}

/* One write of a .h, a .c and a depfile; its result, errno in *err; the
 * descriptors and both locks as they were before. */
static int write3(const char *h, const char *c, const char *dep, int *err)
{
    const char *paths[3] = {at(h), at(c), at(dep)};
    const char *data[3] = {"/* h */\n", "/* c */\n", "x: y\n"};
    const size_t lens[3] = {8, 8, 5};
    int before = open_fds(), rc;

    errno = 0;
    rc = mg_write_changed(3, paths, data, lens);
    *err = errno;
    assert_int_equal(open_fds(), before);
    assert_true(lock_free(at("out")));
    assert_true(lock_free(at("dep")));
    return rc;
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");

    (void)state;
    snprintf(root, sizeof root, "%s/mg-write-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        return -1;
    if (mkdir(at("out"), 0700) != 0 || mkdir(at("dep"), 0700) != 0 ||
        symlink("out", at("link")) != 0 || mkfifo(at("dep/fifo"), 0600) != 0 ||
        symlink("/proc/self/fd", at("self-fd")) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    static const char *const names[] = {"out/a.h", "out/a.c",  "dep/a.d", "out/b.h",   "out/b.c",
                                        "dep/b.d", "out/d.h",  "out/d.c", "out/f.h",   "out/f.c",
                                        "link",    "dep/fifo", "self-fd", "dep/own.d", "fd-link",
                                        "out/g.h", "out/g.c",  "out/h.h", "out/h.c"};
    size_t i;

    (void)state;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(at(names[i]));
    rmdir(at("out"));
    rmdir(at("dep"));
    return rmdir(root);
}

static void test_locks_released(void **state)
{
    int err;

    (void)state;
    if (open_fds() < 0)
        skip();
    /* Written, and written again unchanged. */
    assert_int_equal(write3("out/a.h", "out/a.c", "dep/a.d", &err), 0);
    assert_true(exists("out/a.h") && exists("out/a.c") && exists("dep/a.d"));
    assert_int_equal(write3("out/a.h", "out/a.c", "dep/a.d", &err), 0);
    /* One directory by three names: locked once, or the run would wait on
     * its own lock. */
    assert_int_equal(write3("out/../out/b.h", "link/b.c", "./dep/b.d", &err), 0);
    assert_true(exists("out/b.h") && exists("out/b.c") && exists("dep/b.d"));
    /* The depfile's directory is missing: nothing written. */
    assert_int_equal(write3("out/c.h", "out/c.c", "none/c.d", &err), -1);
    assert_int_equal(err, ENOENT);
    assert_false(exists("out/c.h") || exists("out/c.c"));
    /* The depfile is the .c, through the link: nothing written. */
    assert_int_equal(write3("out/d.h", "out/d.c", "link/d.c", &err), -1);
    assert_int_equal(err, EEXIST);
    assert_false(exists("out/d.h") || exists("out/d.c"));
    /* A FIFO that no process reads, written last, under the locks. */
    assert_int_equal(write3("out/f.h", "out/f.c", "dep/fifo", &err), -1);
    assert_int_equal(err, ENXIO);
}

/* The whole of a small file. */
static const char *contents(const char *name)
{
    static char buf[256];
    int fd = open(at(name), O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;

    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

static void test_own_descriptor(void **state)
{
    char name[64];
    struct stat a, b;
    int fd, ro, err;

    (void)state;
    if (open_fds() < 0)
        skip();
    fd = open(at("dep/own.d"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "pre\n", 4), 4);
    /* /proc/self/fd/N through a linked directory: the depfile follows
     * what the descriptor's file held, in that same file. */
    snprintf(name, sizeof name, "self-fd/%d", fd);
    assert_int_equal(write3("out/g.h", "out/g.c", name, &err), 0);
    assert_string_equal(contents("dep/own.d"), "pre\nx: y\n");
    assert_true(fstat(fd, &a) == 0 && stat(at("dep/own.d"), &b) == 0);
    assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
    /* /dev/fd/N through a link: written again, after the first. */
    snprintf(name, sizeof name, "/dev/fd/%d", fd);
    assert_int_equal(symlink(name, at("fd-link")), 0);
    assert_int_equal(write3("out/g.h", "out/g.c", "fd-link", &err), 0);
    assert_string_equal(contents("dep/own.d"), "pre\nx: y\nx: y\n");
    assert_true(exists("fd-link"));
    /* Open only for reading, then not open at all: nothing written. */
    ro = open(at("dep/own.d"), O_RDONLY | O_CLOEXEC);
    assert_true(ro >= 0);
    snprintf(name, sizeof name, "self-fd/%d", ro);
    assert_int_equal(write3("out/h.h", "out/h.c", name, &err), -1);
    assert_int_equal(err, EBADF);
    close(ro);
    assert_int_equal(write3("out/h.h", "out/h.c", name, &err), -1);
    assert_int_equal(err, EBADF);
    assert_false(exists("out/h.h") || exists("out/h.c"));
    close(fd);
    /* Open on the .c: the depfile is the .c. */
    fd = open(at("out/g.c"), O_WRONLY | O_APPEND | O_CLOEXEC);
    assert_true(fd >= 0);
    snprintf(name, sizeof name, "self-fd/%d", fd);
    assert_int_equal(write3("out/g.h", "out/g.c", name, &err), -1);
    assert_int_equal(err, EEXIST);
    assert_string_equal(contents("out/g.c"), "/* c */\n");
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_locks_released, setup, teardown),
        cmocka_unit_test_setup_teardown(test_own_descriptor, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
