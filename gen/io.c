/*
 * All of the generator's file handling: one bounded reader for every input,
 * the path arithmetic the inputs need (a file's directory, a path named
 * relative to a file, the form of a path that output may show), and the
 * writers: atomic replacement of a set of files (only of those whose bytes
 * change, so that a build tool sees an unchanged output as up to date), and
 * checked writes to a stream.
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
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
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
    mg_error(d, r->check, at, "cannot read %s: out of memory", mg_input_name(d, r, label));
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

/* Writes data to a new temporary file beside path, with the mode a plain
 * create would give, synced. Returns its malloc'd name, or NULL (errno). */
static char *mg_write_temp(const char *path, const char *data, size_t len)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    mode_t mask;
    int fd, saved;
    size_t done = 0;

    if (!tmp)
        return NULL;
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", 12);
    fd = mkstemp(tmp);
    if (fd < 0)
        goto fail;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            goto fail_fd;
        }
        done += (size_t)n;
    }
    /* mkstemp makes 0600; give the file the mode a plain create would. */
    mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || fsync(fd) != 0)
        goto fail_fd;
    if (close(fd) != 0) {
        fd = -1;
        goto fail_fd;
    }
    return tmp;

fail_fd:
    saved = errno;
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    errno = saved;
fail:
    saved = errno;
    free(tmp);
    errno = saved;
    return NULL;
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

/* Whether two stat results are one file. */
static int mg_same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The descriptor that path names when it is an entry of this process's
 * own descriptor directory (Linux's /proc/self/fd, which /dev/fd links to,
 * or /proc/thread-self/fd), however that directory is reached; -1 when it
 * is not one. The directory is told by its identity, not by its name. */
static int mg_own_fd_entry(const char *path)
{
    static const char *const dirs[] = {"/proc/self/fd", "/proc/thread-self/fd"};
    const char *base = mg_path_basename(path);
    char *dir;
    struct stat st, own;
    size_t i, n = strlen(base);
    int found = 0;

    if (n == 0 || n > 9 || strspn(base, "0123456789") != n)
        return -1;
    dir = base == path ? strdup(".")
                       : strndup(path, base - 1 == path ? 1 : (size_t)(base - 1 - path));
    if (dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        for (i = 0; i < sizeof dirs / sizeof dirs[0] && !found; i++)
            found = stat(dirs[i], &own) == 0 && mg_same_file(&st, &own);
    free(dir);
    return found ? atoi(base) : -1;
}

/* Whether path, or a link on the way to its target, names one of this
 * process's own descriptors (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N): returns the descriptor, -1 when it names none, -2
 * (errno EBADF) when the descriptor it names is not open for writing,
 * found before anything is written. Such a path is
 * written through the descriptor itself (docs/reference.md, "Files and
 * streams"): following the link to a regular file and replacing that by
 * rename would leave the caller's descriptor on the old, unlinked file,
 * and reopening it would write from offset 0 over what the stream holds. */
static int mg_own_fd(const char *path)
{
    char *cur = strdup(path), *next;
    struct stat st;
    int hops, fd = -1, flags;

    for (hops = 0; cur && hops < 40; hops++) {
        if ((fd = mg_own_fd_entry(cur)) >= 0 || lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            break;
        next = mg_link_next(cur);
        free(cur);
        cur = next;
    }
    free(cur);
    if (fd >= 0 && ((flags = fcntl(fd, F_GETFL)) < 0 || (flags & O_ACCMODE) == O_RDONLY)) {
        errno = EBADF;
        return -2;
    }
    return fd;
}

/* Where a write to path goes (docs/reference.md, "Files and streams"):
 * *fd is set for a path that names one of this process's descriptors
 * (mg_own_fd), which is written through it; *direct is set for that and
 * for a FIFO or character device, which is written in place; a regular
 * file (or none yet) is replaced atomically, through any symbolic links,
 * so the link stays and its target changes. Anything else is refused
 * (ENOTSUP, or EISDIR). Returns the malloc'd path to write, or NULL with
 * errno set. */
static char *mg_out_target(const char *path, int *direct, int *fd)
{
    struct stat st;
    char *cur;
    int hops;

    *direct = 0;
    if ((*fd = mg_own_fd(path)) == -2)
        return NULL;
    cur = strdup(path);
    if (cur && (*fd >= 0 || (stat(path, &st) == 0 && !S_ISREG(st.st_mode)))) {
        if (*fd >= 0 || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
            *direct = 1;
            return cur;
        }
        free(cur);
        errno = S_ISDIR(st.st_mode) ? EISDIR : ENOTSUP;
        return NULL;
    }
    /* A link is followed by hand, not by realpath(): its target may not
     * exist yet, and then it is created. */
    for (hops = 0; cur && hops < 40; hops++) {
        char *next;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        next = mg_link_next(cur);
        free(cur);
        if (!next)
            return NULL;
        cur = next;
    }
    if (cur)
        errno = ELOOP;
    free(cur);
    return NULL;
}

/* Writes data through descriptor fd, at its own offset, after whatever
 * this process's streams hold (so that `--svg /dev/stdout` follows what
 * was printed before it). */
static int mg_write_fd(int fd, const char *data, size_t len)
{
    size_t done = 0;

    if (fflush(NULL) != 0)
        return -1;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

/* Writes data to a FIFO or device in place. A FIFO that no process reads
 * is refused at once (ENXIO) rather than waited for. */
static int mg_write_direct(const char *path, const char *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC), saved;
    size_t done = 0;

    if (fd < 0)
        return -1;
    if (fcntl(fd, F_SETFL, 0) != 0)
        goto fail;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto fail;
        done += (size_t)n;
    }
    return close(fd);
fail:
    saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

/* Removes what an earlier run killed mid-write left beside target:
 * <base>.tmp.XXXXXX and <base>.tmp.XXXXXX.old. Called under the lock, when
 * no other run of meshgen is writing there. */
static void mg_clean_stale(const char *target)
{
    const char *base = strrchr(target, '/');
    size_t dlen = base ? (size_t)(base - target) : 0, blen;
    char *dir = base ? strndup(target, dlen ? dlen : 1) : strdup(".");
    DIR *dh = dir ? opendir(dir) : NULL;
    struct dirent *e;

    base = base ? base + 1 : target;
    blen = strlen(base);
    while (dh && (e = readdir(dh)) != NULL) {
        const char *rest = e->d_name + blen;
        char *full;
        if (strncmp(e->d_name, base, blen) != 0 || strncmp(rest, ".tmp.", 5) != 0 ||
            strspn(rest + 5, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") !=
                6 ||
            (rest[11] != '\0' && strcmp(rest + 11, ".old") != 0))
            continue;
        full = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (full) {
            sprintf(full, "%s/%s", dir, e->d_name);
            unlink(full);
            free(full);
        }
    }
    if (dh)
        closedir(dh);
    free(dir);
}

/* The locks of one write: the directory of each target, opened once per
 * directory (a second flock on another open of the same directory would
 * wait on this run's own first one). */
struct mg_locks {
    int n;
    int fd[MG_MAX_OUTPUTS];    /* -1: this directory is written unlocked */
    dev_t dev[MG_MAX_OUTPUTS]; /* which directory, to find it again and to */
    ino_t ino[MG_MAX_OUTPUTS]; /* order the locks */
    int of[MG_MAX_OUTPUTS];    /* each target's directory; -1: none opened */
};

/* The directory of path, opened for its lock: -2 when it may be written
 * but not read (EACCES), and then it is written unlocked; -1 when it is
 * missing or otherwise unusable (errno). */
static int mg_open_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

    free(dir);
    if (fd < 0 && errno == EACCES)
        return -2;
    return fd;
}

/* Whether target i is written under a lock: only then are stale
 * temporaries beside it removed. */
static int mg_locked(const struct mg_locks *k, int i)
{
    return k->of[i] >= 0 && k->fd[k->of[i]] >= 0;
}

static void mg_unlock_dirs(struct mg_locks *k)
{
    int i, saved = errno;

    for (i = 0; i < k->n; i++)
        if (k->fd[i] >= 0)
            close(k->fd[i]);
    k->n = 0;
    errno = saved;
}

/* An exclusive flock on the directory of every target (the pair's and a
 * depfile's elsewhere alike), held until mg_unlock_dirs: two runs that
 * write into one directory take turns, so a .h, a .c and their depfile
 * always come from the same run, and a run's stale-temporary removal never
 * meets another run's temporary. A FIFO or device written in place is not
 * renamed and takes none (its directory is often /dev). The locks are
 * taken in (device, inode) order, so runs that share several directories
 * cannot wait on each other in a cycle. Best effort: a directory that may
 * be written but not read, or whose file system refuses flock (ENOLCK,
 * EOPNOTSUPP, EINVAL, any error but EINTR), is written unlocked, as before
 * the lock existed. -1 (errno) when a directory is missing or otherwise
 * unusable. */
static int mg_lock_dirs(struct mg_locks *k, int n, char *const *targets, const int *direct)
{
    int i, j, r, order[MG_MAX_OUTPUTS];
    struct stat st;

    k->n = 0;
    for (i = 0; i < n; i++) {
        int fd;
        k->of[i] = -1;
        if (direct[i] || (fd = mg_open_dir(targets[i])) == -2)
            continue;
        if (fd < 0 || fstat(fd, &st) != 0) {
            if (fd >= 0)
                close(fd);
            mg_unlock_dirs(k);
            return -1;
        }
        for (j = 0; j < k->n && (k->dev[j] != st.st_dev || k->ino[j] != st.st_ino); j++)
            ;
        if (j < k->n) {
            close(fd);
        } else {
            k->fd[j] = fd;
            k->dev[j] = st.st_dev;
            k->ino[j] = st.st_ino;
            order[j] = j;
            k->n++;
        }
        k->of[i] = j;
    }
    for (i = 1; i < k->n; i++) /* insertion sort by (device, inode) */
        for (j = i; j > 0 && (k->dev[order[j - 1]] > k->dev[order[j]] ||
                              (k->dev[order[j - 1]] == k->dev[order[j]] &&
                               k->ino[order[j - 1]] > k->ino[order[j]]));
             j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (i = 0; i < k->n; i++) {
        int *fd = &k->fd[order[i]];
        do
            r = flock(*fd, LOCK_EX);
        while (r != 0 && errno == EINTR);
        if (r != 0) {
            close(*fd);
            *fd = -1;
        }
    }
    return 0;
}

/* Replaces the regular targets together: temporaries first, then renames,
 * rolled back when one fails. Hard links keep the old files reachable
 * until every rename is done, so a failed rename can put back the ones
 * already replaced. Targets written in place are skipped here. */
static int mg_replace_files(int n, char *const *paths, const int *direct, const char *const *data,
                            const size_t *lens)
{
    char *tmp[MG_MAX_OUTPUTS] = {0}, *bak[MG_MAX_OUTPUTS] = {0};
    int i, j, saved, ok = 0;

    for (i = 0; i < n; i++)
        if (!direct[i] && !(tmp[i] = mg_write_temp(paths[i], data[i], lens[i])))
            goto out;
    for (i = 0; i < n; i++) {
        struct stat st;
        if (direct[i] || lstat(paths[i], &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        bak[i] = malloc(strlen(tmp[i]) + 5);
        if (!bak[i])
            goto out;
        sprintf(bak[i], "%s.old", tmp[i]);
        if (link(paths[i], bak[i]) != 0) {
            free(bak[i]);
            bak[i] = NULL;
            goto out;
        }
    }
    for (i = 0; i < n; i++) {
        if (direct[i])
            continue;
        if (rename(tmp[i], paths[i]) != 0) {
            saved = errno;
            for (j = 0; j < i; j++) {
                if (direct[j])
                    continue;
                if (bak[j] ? rename(bak[j], paths[j]) == 0 : unlink(paths[j]) == 0) {
                    free(bak[j]);
                    bak[j] = NULL;
                }
            }
            errno = saved;
            goto out;
        }
        free(tmp[i]);
        tmp[i] = NULL;
    }
    ok = 1;
out:
    saved = errno;
    for (i = 0; i < n; i++) {
        if (tmp[i])
            unlink(tmp[i]);
        if (bak[i])
            unlink(bak[i]);
        free(tmp[i]);
        free(bak[i]);
    }
    errno = saved;
    return ok ? 0 : -1;
}

/* Whether path is a regular file that holds exactly len bytes, data. Any
 * doubt (cannot open, cannot read) answers no, and the file is written.
 * O_NONBLOCK: a FIFO is not waited on (it is not a regular file). */
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

/* Whether two targets name one file: the same name in the same directory,
 * however the directory is reached (a link, "."/".."). A directory that
 * cannot be looked at answers no; opening it for the lock then fails. */
static int mg_same_target(const char *a, const char *b)
{
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    char *da, *db;
    struct stat st_a, st_b;
    int same;

    if (strcmp(sa ? sa + 1 : a, sb ? sb + 1 : b) != 0)
        return 0;
    da = sa ? strndup(a, sa == a ? 1 : (size_t)(sa - a)) : strdup(".");
    db = sb ? strndup(b, sb == b ? 1 : (size_t)(sb - b)) : strdup(".");
    same = da && db && stat(da, &st_a) == 0 && stat(db, &st_b) == 0 && st_a.st_dev == st_b.st_dev &&
           st_a.st_ino == st_b.st_ino;
    free(da);
    free(db);
    return same;
}

/* Whether descriptor fd (-1: none) is open on the regular file that path
 * names: /dev/stdout while stdout is redirected to the .c. */
static int mg_fd_is_target(int fd, const char *path)
{
    struct stat a, b;

    return fd >= 0 && fstat(fd, &a) == 0 && S_ISREG(a.st_mode) && stat(path, &b) == 0 &&
           mg_same_file(&a, &b);
}

/* mg_write_files and mg_write_changed: with only_changed, a regular target
 * that already holds its bytes is left alone. The comparison is made under
 * the lock too, so a run never keeps one file of a pair that another run
 * is replacing. */
static int mg_write_set(int n, const char *const *paths, const char *const *data,
                        const size_t *lens, int only_changed)
{
    char *target[MG_MAX_OUTPUTS] = {0};
    int direct[MG_MAX_OUTPUTS] = {0}, fd[MG_MAX_OUTPUTS], i, m, saved, rc = -1;
    struct mg_locks locks = {0};
    const char *d[MG_MAX_OUTPUTS];
    size_t l[MG_MAX_OUTPUTS];

    if (n > MG_MAX_OUTPUTS || n < 1) {
        errno = EINVAL;
        return -1;
    }
    for (i = 0; i < n; i++)
        if (!(target[i] = mg_out_target(paths[i], &direct[i], &fd[i])))
            goto out;
    /* Two names of one file (a depfile that is the .c, or /dev/stdout
     * when stdout is the .c) would leave it holding whichever was
     * renamed last: refused, nothing written. */
    for (i = 0; i < n; i++)
        for (m = i + 1; m < n; m++)
            if (mg_same_target(target[i], target[m]) || mg_fd_is_target(fd[i], target[m]) ||
                mg_fd_is_target(fd[m], target[i])) {
                errno = EEXIST;
                goto out;
            }
    if (mg_lock_dirs(&locks, n, target, direct) != 0)
        goto out;
    for (i = m = 0; i < n; i++) {
        /* Only under the lock: unlocked, another run's temporaries look stale. */
        if (!direct[i] && mg_locked(&locks, i))
            mg_clean_stale(target[i]);
        if (only_changed && !direct[i] && mg_file_equals(target[i], data[i], lens[i])) {
            free(target[i]);
            continue;
        }
        target[m] = target[i];
        direct[m] = direct[i];
        fd[m] = fd[i];
        d[m] = data[i];
        l[m] = lens[i];
        m++;
    }
    for (i = m; i < n; i++)
        target[i] = NULL;
    rc = mg_replace_files(m, target, direct, d, l);
    /* In place last: nothing goes to a FIFO or device unless the files
     * that are replaced have been. */
    for (i = 0; rc == 0 && i < m; i++)
        if (direct[i])
            rc = fd[i] >= 0 ? mg_write_fd(fd[i], d[i], l[i])
                            : mg_write_direct(target[i], d[i], l[i]);
out:
    saved = errno;
    mg_unlock_dirs(&locks);
    for (i = 0; i < n; i++)
        free(target[i]);
    errno = saved;
    return rc;
}

int mg_write_files(int n, const char *const *paths, const char *const *data, const size_t *lens)
{
    return mg_write_set(n, paths, data, lens, 0);
}

int mg_write_atomic(const char *path, const char *data, size_t len)
{
    return mg_write_files(1, &path, &data, &len);
}

int mg_write_changed(int n, const char *const *paths, const char *const *data, const size_t *lens)
{
    return mg_write_set(n, paths, data, lens, 1);
}

int mg_write_stream(FILE *out, const char *data, size_t len)
{
    /* The flush makes a full disk an error of this run, not a silent loss
     * at exit. */
    if ((len && fwrite(data, 1, len, out) != len) || fflush(out) != 0)
        return -1;
    return 0;
}
