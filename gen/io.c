/*
 * All of the generator's file handling: one bounded reader for every input,
 * the path arithmetic the inputs need (a file's directory, a path named
 * relative to a file, the form of a path that output may show, whether an
 * output would land on an input), and the writers: each output replaced
 * through a lock file beside it (only when its bytes change, so that a
 * build tool sees an unchanged output as up to date), and checked writes
 * to a stream.
 *
 * The reader knows two kinds of input, each with its own size limit and
 * check names (docs/reference.md, "Checks"); every error it reports has one
 * wording, naming the file as the user wrote it. It knows nothing of what
 * the bytes mean: YAML and XML are parsed elsewhere.
 */
#include "io.h"
#include "diag.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the bounded reader ----------------------------------------------------- */

/* What each kind of input may be, and how its errors are named. */
struct mg_input_rules {
    size_t limit;                /* bytes */
    const char *noun;            /* put before the quoted name in messages */
    enum mg_check_id check;      /* the file cannot be opened or read */
    enum mg_check_id check_size; /* the file is larger than the limit */
    int text_only;               /* an empty file or a NUL byte is an error */
};

static const struct mg_input_rules mg_inputs[] = {
    /* A spec or inventory is a few kilobytes; the limit keeps a wrong path
     * (a disk image) cheap. The YAML loader judges empty files and NULs. */
    [MG_INPUT_YAML] = {(size_t)16 << 20, "", MG_CHK_IO, MG_CHK_INPUT_TOO_LARGE, 0},
    /* A real hwloc export is well under 1 MiB. hwloc's own parser stops at
     * a NUL and libxml2 does not, so a NUL is refused to keep both reading
     * the same bytes. */
    [MG_INPUT_XML] = {(size_t)64 << 20, "inventory ", MG_CHK_INVENTORY_LOAD, MG_CHK_INVENTORY_LOAD,
                      1},
};

/* The file as messages name it: quoted as the user wrote it, control bytes
 * escaped. Built only on error. */
static const char *mg_input_name(struct mg_diags *d, const struct mg_input_rules *r,
                                 const char *label)
{
    return mg_printf(d->arena, "%s%s", r->noun, mg_show_path(d->arena, label));
}

/* The rest of an open file, in heap memory with room for a NUL after it:
 * never more than one byte past the limit, which tells a file at the limit
 * from a larger one. NULL after reporting. */
static char *mg_io_slurp(struct mg_diags *d, struct mg_mark at, const struct mg_input_rules *r,
                         const char *label, int fd, const struct stat *st, size_t *len)
{
    /* Pipes and devices have no size to start from. A regular file gets one
     * spare byte so that the read hitting end-of-file needs no growth. */
    size_t n = 0, cap = S_ISREG(st->st_mode) ? (size_t)st->st_size + 1 : (size_t)64 * 1024;
    char *buf = malloc(cap + 1);
    int err;

    if (!buf)
        goto oom;
    for (;;) {
        ssize_t got;
        if (n == cap) {
            char *bigger;
            if (cap > r->limit) {
                mg_error(d, r->check_size, at,
                         "%s has more than %zu bytes, expected at most %zu bytes (%zu MiB)",
                         mg_input_name(d, r, label), r->limit, r->limit, r->limit >> 20);
                goto fail;
            }
            cap = cap > r->limit / 2 ? r->limit + 1 : 2 * cap;
            bigger = realloc(buf, cap + 1);
            if (!bigger)
                goto oom;
            buf = bigger;
        }
        got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            err = errno;
            mg_error(d, r->check, at, "cannot read %s: %s", mg_input_name(d, r, label),
                     strerror(err));
            goto fail;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    buf[n] = '\0';
    *len = n;
    return buf;

oom:
    /* The generator's policy for every allocation (docs/architecture.md):
     * exit 2, not an error of the input. */
    mg_oom();
fail:
    free(buf);
    return NULL;
}

char *mg_io_read(struct mg_diags *d, struct mg_mark at, const char *path, const char *label,
                 enum mg_input kind, size_t *len)
{
    const struct mg_input_rules *r = &mg_inputs[kind];
    struct stat st;
    char *buf = NULL;
    int fd, err;

    *len = 0;
    /* O_NONBLOCK: opening a FIFO that no process writes returns at once,
     * and the check below refuses it, instead of waiting forever. */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        err = errno;
        mg_error(d, r->check, at, "cannot open %s: %s", mg_input_name(d, r, label), strerror(err));
        d->io_errors++;
        return NULL;
    }
    d->io_errors++; /* taken back below when the file is read */
    if (fstat(fd, &st) != 0) {
        err = errno;
        mg_error(d, r->check, at, "cannot stat %s: %s", mg_input_name(d, r, label), strerror(err));
    } else if (S_ISDIR(st.st_mode)) {
        mg_error(d, r->check, at, "found a directory at %s, expected a file",
                 mg_input_name(d, r, label));
    } else if (!S_ISREG(st.st_mode)) {
        mg_error(d, r->check, at, "found %s at %s, expected a regular file",
                 S_ISFIFO(st.st_mode)  ? "a FIFO"
                 : S_ISCHR(st.st_mode) ? "a character device"
                                       : "a special file",
                 mg_input_name(d, r, label));
    } else if (fcntl(fd, F_SETFL, 0) != 0) {
        err = errno;
        mg_error(d, r->check, at, "cannot read %s: %s", mg_input_name(d, r, label), strerror(err));
    } else if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > r->limit) {
        /* Refused before it is read. */
        mg_error(d, r->check_size, at, "%s is %jd bytes, expected at most %zu bytes (%zu MiB)",
                 mg_input_name(d, r, label), (intmax_t)st.st_size, r->limit, r->limit >> 20);
    } else {
        buf = mg_io_slurp(d, at, r, label, fd, &st, len);
    }
    close(fd);
    if (buf)
        d->io_errors--;
    if (buf && r->text_only && *len == 0) {
        mg_error(d, r->check, at, "%s is empty", mg_input_name(d, r, label));
    } else if (buf && r->text_only && memchr(buf, '\0', *len)) {
        mg_error(d, r->check, at, "%s contains a NUL byte: not an hwloc XML file",
                 mg_input_name(d, r, label));
    } else {
        return buf;
    }
    free(buf);
    *len = 0;
    return NULL;
}

char *mg_read_file(struct mg_arena *a, struct mg_diags *d, const char *path, struct mg_mark at,
                   size_t *len)
{
    size_t n;
    char *heap = mg_io_read(d, at, path, path, MG_INPUT_YAML, &n), *text;

    if (len)
        *len = 0;
    if (!heap)
        return NULL;
    text = mg_strndup(a, heap, n);
    free(heap);
    if (len)
        *len = n;
    return text;
}

/* ---- paths ----------------------------------------------------------------- */

const char *mg_path_dirname(struct mg_arena *a, const char *file)
{
    const char *slash = strrchr(file, '/');
    size_t n;

    if (!slash)
        return ".";
    n = (size_t)(slash - file);
    while (n > 0 && file[n - 1] == '/')
        n--;
    return n == 0 ? "/" : mg_strndup(a, file, n);
}

const char *mg_path_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

size_t mg_path_stem(const char *path, const char **start)
{
    const char *base = mg_path_basename(path), *dot = strrchr(base, '.');

    if (!dot || dot == base)
        dot = base + strlen(base);
    *start = base;
    return (size_t)(dot - base);
}

const char *mg_path_display(const char *path)
{
    return path[0] == '/' ? mg_path_basename(path) : path;
}

const char *mg_path_relative(struct mg_arena *a, const char *dir, const char *path)
{
    /* Left alone when dir is the current directory, so that messages show
     * the path as the user knows it. */
    if (path[0] == '/' || strcmp(dir, ".") == 0)
        return path;
    return mg_printf(a, "%s/%s", dir, path);
}

int mg_path_has_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path), m = strlen(suffix), i;

    if (m > n)
        return 0;
    for (i = 0; i < m; i++) {
        char c = path[n - m + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != suffix[i])
            return 0;
    }
    return 1;
}

int mg_file_identity(const char *path, struct mg_file_id *id)
{
    struct stat st;

    if (stat(path, &st) != 0)
        return -1;
    id->dev = (uintmax_t)st.st_dev;
    id->ino = (uintmax_t)st.st_ino;
    return 0;
}

int mg_is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- writers ---------------------------------------------------------------- */

/* A regular output is written as git writes its files (docs/reference.md,
 * "Files and streams"): into <target>.lock, created exclusively beside the
 * target, then synced and renamed over it. The lock file is also the lock:
 * while it exists no other run writes that file. */
#define MG_LOCK_SUFFIX ".lock"
/* How long a run waits for another run's lock files: far longer than a run
 * holds them, short enough that one left by a killed run is reported soon. */
#define MG_LOCK_WAIT_MS 5000
/* Symbolic links followed from one output path, the kernel's own limit. */
#define MG_MAX_LINKS 40

/* The lock files this process holds, one slot per output, in static memory
 * so that a signal handler can remove them (unlink is async-signal-safe). */
static char mg_lock_name[MG_MAX_OUTPUTS][4096];
static volatile sig_atomic_t mg_lock_held[MG_MAX_OUTPUTS];

/* The signals that end a process by default and whose handler removes the
 * lock files (mg_locks_guard). */
static const int mg_lock_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM};

/* Holds those signals back while a lock file and its mark in mg_lock_held
 * change together (created, renamed away, removed), and lets them in
 * again: a signal between the two would leave a lock file behind, or
 * remove the one another run has just taken under the same name. */
static void mg_locks_hold_signals(sigset_t *old)
{
    sigset_t set;
    int i;

    sigemptyset(&set);
    for (i = 0; i < MG_COUNT(mg_lock_signals); i++)
        sigaddset(&set, mg_lock_signals[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

static void mg_locks_release_signals(const sigset_t *old)
{
    int saved = errno;

    sigprocmask(SIG_SETMASK, old, NULL);
    errno = saved;
}

static void mg_locks_remove(void)
{
    int i;

    for (i = 0; i < MG_MAX_OUTPUTS; i++)
        if (mg_lock_held[i]) {
            mg_lock_held[i] = 0;
            unlink(mg_lock_name[i]);
        }
}

static void mg_locks_on_signal(int sig)
{
    mg_locks_remove();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Removes held lock files at exit (mg_oom exits too) and on the signals
 * that end a process by default, so that no run leaves one behind but a
 * run killed outright (SIGKILL). A signal already ignored stays ignored.
 * Installed once, when the first lock is taken. */
static void mg_locks_guard(void)
{
    static int installed;
    struct sigaction sa, old;
    int i;

    if (installed)
        return;
    installed = 1;
    atexit(mg_locks_remove);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = mg_locks_on_signal;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < MG_COUNT(mg_lock_signals); i++)
        if (sigaction(mg_lock_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            sigaction(mg_lock_signals[i], &sa, NULL);
}

/* The descriptor N that a path spelled /dev/fd/N or /proc/self/fd/N names
 * (where /dev/stdout and /dev/stderr lead), or -1. */
static int mg_fd_named(const char *path)
{
    static const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/"};
    size_t i, k, n = strlen(path);

    for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        k = strlen(dirs[i]);
        if (n > k && n - k <= 9 && strncmp(path, dirs[i], k) == 0 &&
            strspn(path + k, "0123456789") == n - k)
            return atoi(path + k);
    }
    return -1;
}

/* The path a symbolic link at cur points to, malloc'd: its target as
 * written, relative to cur's directory. NULL (errno) when it cannot be
 * read. */
static char *mg_link_next(const char *cur)
{
    char link[4096], *next;
    ssize_t n = readlink(cur, link, sizeof link - 1);

    if (n < 0)
        return NULL;
    link[n] = '\0';
    next = malloc(strlen(cur) + (size_t)n + 2);
    if (next && link[0] == '/') {
        strcpy(next, link);
    } else if (next) {
        const char *slash = strrchr(cur, '/');
        size_t k = slash ? (size_t)(slash - cur) + 1 : 0;
        memcpy(next, cur, k);
        strcpy(next + k, link);
    }
    return next;
}

/* path after its symbolic links, malloc'd; NULL with errno set. Followed by
 * hand, not by realpath(): a dangling link's target is where a write
 * creates the file. It stops at a name of one of this process's own
 * descriptors, which is written through, not followed to the file the
 * descriptor is open on. */
static char *mg_follow(const char *path)
{
    struct stat st;
    char *cur = strdup(path), *next;
    int hops = 0;

    while (cur && mg_fd_named(cur) < 0 && lstat(cur, &st) == 0 && S_ISLNK(st.st_mode)) {
        next = hops++ < MG_MAX_LINKS ? mg_link_next(cur) : NULL;
        if (hops > MG_MAX_LINKS)
            errno = ELOOP;
        free(cur);
        cur = next;
    }
    return cur;
}

/* The identity of the directory that path is in. */
static int mg_dir_identity(const char *path, struct mg_file_id *id)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    int rc = dir ? mg_file_identity(dir, id) : -1;

    free(dir);
    return rc;
}

/* Whether a and b (after their links) are one name in one directory,
 * however the directory is reached (a link, "."/".."). */
static int mg_same_name(const char *a, const char *b)
{
    char *fa = mg_follow(a), *fb = mg_follow(b);
    struct mg_file_id ia, ib;
    int same = fa && fb && strcmp(mg_path_basename(fa), mg_path_basename(fb)) == 0 &&
               mg_dir_identity(fa, &ia) == 0 && mg_dir_identity(fb, &ib) == 0 && ia.dev == ib.dev &&
               ia.ino == ib.ino;

    free(fa);
    free(fb);
    return same;
}

int mg_path_clash(const char *a, const char *b)
{
    struct stat sa, sb;
    int ha = stat(a, &sa) == 0, hb = stat(b, &sb) == 0;

    /* A FIFO or device is no input, and two outputs never both are. */
    if (ha || hb)
        return ha && hb && S_ISREG(sa.st_mode) && S_ISREG(sb.st_mode) && sa.st_dev == sb.st_dev &&
               sa.st_ino == sb.st_ino;
    return mg_same_name(a, b);
}

/* How an output is written. */
enum mg_way {
    MG_REPLACE,  /* a regular file, or none yet: through its lock file */
    MG_IN_PLACE, /* a FIFO or a character device: opened and written */
    MG_OWN_FD    /* one of this process's descriptors: written through it */
};

struct mg_target {
    char *path; /* after its links, malloc'd */
    enum mg_way way;
    int fd;        /* MG_OWN_FD: the descriptor; MG_REPLACE: the lock file, once taken */
    int unchanged; /* it already holds its bytes: left alone */
};

/* Where the bytes for path go. -1 with errno set: EISDIR, ENOTSUP (neither
 * a regular file, a FIFO nor a character device), EBADF (a descriptor
 * that is not open for writing), ELOOP. */
static int mg_target(const char *path, struct mg_target *t)
{
    struct stat st;
    int fd, flags;

    t->way = MG_REPLACE;
    t->fd = -1;
    t->unchanged = 0;
    if (!(t->path = mg_follow(path)))
        return -1;
    if ((fd = mg_fd_named(t->path)) >= 0) {
        flags = fcntl(fd, F_GETFL);
        if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) {
            errno = EBADF;
            return -1;
        }
        t->way = MG_OWN_FD;
        t->fd = fd;
        return 0;
    }
    if (lstat(t->path, &st) != 0)
        return errno == ENOENT ? 0 : -1; /* created by the rename */
    if (S_ISREG(st.st_mode))
        return 0;
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
        t->way = MG_IN_PLACE;
        return 0;
    }
    errno = S_ISDIR(st.st_mode) ? EISDIR : ENOTSUP;
    return -1;
}

static int mg_write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* A FIFO or device, written in place. One that no process reads is
 * refused at once (ENXIO) rather than waited for. */
static int mg_write_in_place(const char *path, const char *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC), saved;

    if (fd < 0)
        return -1;
    if (fcntl(fd, F_SETFL, 0) != 0 || mg_write_all(fd, data, len) != 0) {
        saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return close(fd);
}

/* Whether path is a regular file that holds exactly len bytes, data. Any
 * doubt (cannot open, cannot read) answers no, and the file is written. */
static int mg_file_equals(const char *path, const char *data, size_t len)
{
    char chunk[8192];
    struct stat st;
    size_t done = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), same = 0;

    if (fd < 0)
        return 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uintmax_t)st.st_size != len)
        goto out;
    for (;;) {
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 || (size_t)got > len - done)
            goto out;
        if (got == 0)
            break;
        if (memcmp(chunk, data + done, (size_t)got) != 0)
            goto out;
        done += (size_t)got;
    }
    same = done == len;
out:
    close(fd);
    return same;
}

/* Takes the lock file of output i: created exclusively, so that it fails
 * with EEXIST while another run holds it. */
static int mg_lock_take(int i, struct mg_target *t)
{
    size_t n = strlen(t->path);
    sigset_t old;

    if (n + sizeof MG_LOCK_SUFFIX > sizeof mg_lock_name[i]) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(mg_lock_name[i], t->path, n);
    memcpy(mg_lock_name[i] + n, MG_LOCK_SUFFIX, sizeof MG_LOCK_SUFFIX);
    mg_locks_hold_signals(&old);
    t->fd = open(mg_lock_name[i], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (t->fd >= 0)
        mg_lock_held[i] = 1;
    mg_locks_release_signals(&old);
    return t->fd < 0 ? -1 : 0;
}

/* Closes and removes the lock file of output i, if it holds one. */
static void mg_lock_drop(int i, struct mg_target *t)
{
    int saved = errno;
    sigset_t old;

    if (t->way != MG_REPLACE)
        return;
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
    mg_locks_hold_signals(&old);
    if (mg_lock_held[i]) {
        mg_lock_held[i] = 0;
        unlink(mg_lock_name[i]);
    }
    mg_locks_release_signals(&old);
    errno = saved;
}

/* Renames each lock file over its target, which is then no longer held.
 * The signals are held back until every rename is done: one that came
 * between two renames would leave a new .h beside an old .c. 0, or -1 with
 * errno and *failed set (the lock files from there on are still held). */
static int mg_lock_commit_all(int n, const struct mg_target *t, int *failed)
{
    sigset_t old;
    int i, rc = 0;

    mg_locks_hold_signals(&old);
    for (i = 0; i < n && rc == 0; i++) {
        if (t[i].way != MG_REPLACE || t[i].unchanged)
            continue;
        rc = rename(mg_lock_name[i], t[i].path);
        if (rc == 0)
            mg_lock_held[i] = 0;
        else
            *failed = i;
    }
    mg_locks_release_signals(&old);
    return rc;
}

/* Takes the lock file of every output that is replaced, or none: while
 * another run holds one of them, gives back those taken and tries again
 * after a pause, so that two runs that want the same files never wait on
 * each other. 0, or -1 with errno and *failed set. */
static int mg_lock_all(int n, struct mg_target *t, int *failed)
{
    long waited = 0, pause_ms = 1;
    int i, j;

    mg_locks_guard();
    for (;;) {
        struct timespec ts;
        for (i = 0; i < n; i++)
            if (t[i].way == MG_REPLACE && mg_lock_take(i, &t[i]) != 0)
                break;
        if (i == n)
            return 0;
        for (j = 0; j < i; j++)
            mg_lock_drop(j, &t[j]);
        if (errno != EEXIST || waited >= MG_LOCK_WAIT_MS) {
            *failed = i;
            return -1;
        }
        /* The process id staggers two runs that retry in step. */
        pause_ms = pause_ms < 50 ? 2 * pause_ms + (getpid() & 1) : 100;
        ts.tv_sec = 0;
        ts.tv_nsec = pause_ms * 1000000L;
        nanosleep(&ts, NULL);
        waited += pause_ms;
    }
}

/* Fills the lock files of the outputs whose bytes change, each synced to
 * disk, and drops those of the outputs that already hold their bytes. */
static int mg_fill_locks(int n, struct mg_target *t, const struct mg_output *out, int *failed)
{
    int i, fd;

    for (i = 0; i < n; i++) {
        if (t[i].way != MG_REPLACE)
            continue;
        /* Compared under the lock: no other run is replacing it now. */
        if (mg_file_equals(t[i].path, out[i].data, out[i].len)) {
            mg_lock_drop(i, &t[i]);
            t[i].unchanged = 1;
            continue;
        }
        fd = t[i].fd;
        t[i].fd = -1;
        if (mg_write_all(fd, out[i].data, out[i].len) != 0 || fsync(fd) != 0) {
            int saved = errno;
            close(fd);
            errno = saved;
            *failed = i;
            return -1;
        }
        if (close(fd) != 0) {
            *failed = i;
            return -1;
        }
    }
    return 0;
}

/* Writes an output that is not replaced: a FIFO or device in place, a
 * descriptor after whatever this process's streams hold (so that `show
 * --svg /dev/stdout` follows the grid). */
static int mg_write_direct(const struct mg_target *t, const struct mg_output *o)
{
    if (t->way == MG_IN_PLACE)
        return mg_write_in_place(t->path, o->data, o->len);
    if (fflush(NULL) != 0)
        return -1;
    return mg_write_all(t->fd, o->data, o->len);
}

int mg_write_outputs(int n, const struct mg_output *out, int *failed)
{
    struct mg_target t[MG_MAX_OUTPUTS];
    int i, made = 0, rc = -1;

    *failed = 0;
    if (n < 1 || n > MG_MAX_OUTPUTS) {
        errno = EINVAL;
        return -1;
    }
    for (made = 0; made < n; made++)
        if (mg_target(out[made].path, &t[made]) != 0) {
            *failed = made++;
            goto out;
        }
    if (mg_lock_all(n, t, failed) != 0 || mg_fill_locks(n, t, out, failed) != 0)
        goto out;
    /* Every file is written before any is replaced: a full disk or a
     * file-size limit leaves every target as it was. */
    if (mg_lock_commit_all(n, t, failed) != 0)
        goto out;
    /* In place last: a FIFO's reader sees nothing unless the files have
     * been replaced. */
    for (i = 0; i < n; i++)
        if (t[i].way != MG_REPLACE && mg_write_direct(&t[i], &out[i]) != 0) {
            *failed = i;
            goto out;
        }
    rc = 0;
out:
    for (i = 0; i < made; i++) {
        mg_lock_drop(i, &t[i]);
        free(t[i].path);
    }
    return rc;
}

const char *mg_output_lock(struct mg_arena *a, const char *path)
{
    char *target = mg_follow(path);
    const char *lock = mg_printf(a, "%s%s", target ? target : path, MG_LOCK_SUFFIX);

    free(target);
    return lock;
}

int mg_write_stream(FILE *out, const char *data, size_t len)
{
    /* The flush makes a full disk an error of this run, not a silent loss
     * at exit. */
    if ((len && fwrite(data, 1, len, out) != len) || fflush(out) != 0)
        return -1;
    return 0;
}
