/*
 * The file handling of io.c that only the stages use: the bounded reader
 * with its kinds of input, paths, file identity, the writer of outputs and
 * checked writes to a stream. (Reading a spec file is in the public
 * header.)
 */
#ifndef MG_IO_H
#define MG_IO_H

#include "internal.h"

/* The kinds of input the bounded reader knows, each with its size limit and
 * check names (docs/reference.md, "Checks"). */
enum mg_input {
    MG_INPUT_YAML, /* a spec or an inventory file: "io", "input-too-large"; 16 MiB */
    MG_INPUT_XML   /* an hwloc XML topology: "inventory-load"; 64 MiB */
};

/* The whole file at path, in heap memory the caller frees, with a NUL after
 * its *len bytes; or NULL after an error at `at` that names the file by
 * label (as the user wrote it). */
char *mg_io_read(struct mg_diags *d, struct mg_mark at, const char *path, const char *label,
                 enum mg_input kind, size_t *len);

/* The directory of a file as given ("." when it has none), for paths that
 * a file names relative to itself. */
const char *mg_path_dirname(struct mg_arena *a, const char *file);
/* The part after the last '/'. */
const char *mg_path_basename(const char *path);
/* The base name without its extension: *start and the length. */
size_t mg_path_stem(const char *path, const char **start);
/* A path as output may show it: an absolute path is cut to its base name,
 * so that output does not depend on where the inputs lie. */
const char *mg_path_display(const char *path);
/* path as a file in dir names it: dir/path, unless path is absolute or dir
 * is ".". */
const char *mg_path_relative(struct mg_arena *a, const char *dir, const char *path);
/* Whether path ends with suffix (lower case), ignoring ASCII case. */
int mg_path_has_suffix(const char *path, const char *suffix);

/* A file known by its device and inode: two spellings of one path, or a
 * link to it, are the same file. */
struct mg_file_id {
    uintmax_t dev, ino;
};
/* 0, or -1 when the file cannot be reached. */
int mg_file_identity(const char *path, struct mg_file_id *id);
int mg_is_directory(const char *path);

/* Whether writing to path a would write over the file path b names, or
 * the other way round: one regular file by device and inode (through
 * links), or, when neither exists yet, one name in one directory. */
int mg_path_clash(const char *a, const char *b);

/* One output of a command: the bytes to put at path. */
struct mg_output {
    const char *path;
    const char *data;
    size_t len;
};
/* generate writes the most: a .h, a .c and a depfile. */
#define MG_MAX_OUTPUTS 3

/*
 * Writes the outputs (docs/reference.md, "Files and streams"), whose paths
 * name distinct files (mg_path_clash). A regular file, or none yet, is
 * replaced: its bytes go to <target>.lock, created exclusively beside it
 * (symbolic links followed, so a link stays and its target changes), then
 * synced and renamed over it, and a file that already holds its bytes is
 * left alone, mtime and all. Every lock file is taken, waiting up to 5 s
 * while another run holds one, and every one is written before any is
 * renamed. A FIFO or character device is written in place after the
 * renames, and /dev/fd/N, /proc/self/fd/N (and /dev/stdout, /dev/stderr,
 * which lead there) through that descriptor. Returns 0, or -1 with errno
 * set and *failed the index of the output that failed: EEXIST (its lock is
 * held), EISDIR, ENOTSUP (a socket, a block device), EBADF (a descriptor
 * not open for writing), ENXIO (a FIFO that no process reads), or what the
 * system said. No lock file is left behind, on any error or signal but
 * SIGKILL.
 */
int mg_write_outputs(int n, const struct mg_output *out, int *failed);
/* The lock file that writing path takes, for messages. */
const char *mg_output_lock(struct mg_arena *a, const char *path);

/* Writes and flushes len bytes to a stream: 0, or -1 with errno set. */
int mg_write_stream(FILE *out, const char *data, size_t len);

#endif /* MG_IO_H */
