// An LD_PRELOAD library that makes chosen file-system calls fail, for the fault tests
// (Tests/EndToEndTests/FileSystemFaultTests.swift). Built by the tests with the toolchain's clang:
//   clang -shared -fPIC -O1 -o fault_shim.so fault_shim.c -ldl
// Each fault is set by environment variables and is active only while the file named by
// PUSHKIT_FAULT_WHILE exists (always, when that is unset), so a test can turn a running server's
// faults on and off. Every injected failure appends one line to PUSHKIT_FAULT_LOG, when set.
//
// PUSHKIT_FAULT_ENOENT=<suffix>  open() of a path ending in <suffix> fails with ENOENT,
//     PUSHKIT_FAULT_ENOENT_COUNT times (default 1) per process, while stat() still finds it.
// PUSHKIT_FAULT_RENAME=<suffix>  rename() onto a path ending in <suffix> (any path: *) fails with EIO every
//     PUSHKIT_FAULT_RENAME_EVERY-th time (default 2: every other one), counted per process from
//     PUSHKIT_FAULT_RENAME_PHASE (default 0).
// PUSHKIT_FAULT_ENOSPC=<prefix>  writes to, and allocations in, files whose path starts with
//     <prefix> fail with ENOSPC: a full disk under that directory.
// PUSHKIT_FAULT_RANDOM=<prefix>  every open, rename, write and sync of a file whose path starts
//     with <prefix> fails with probability PUSHKIT_FAULT_PROBABILITY (default 0.05), drawn from
//     PUSHKIT_FAULT_SEED (and the process id): an open without O_CREAT with ENOENT (the file is
//     still there) or EIO, any other open or a rename with EIO, a write with ENOSPC or EIO, a sync
//     with EIO.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static int active(void) {
    const char *gate = getenv("PUSHKIT_FAULT_WHILE");
    if (gate == NULL || *gate == 0) return 1;
    return access(gate, F_OK) == 0;
}

static void note(const char *what, const char *path) {
    const char *log = getenv("PUSHKIT_FAULT_LOG");
    if (log == NULL || *log == 0) return;
    static int (*real_open)(const char *, int, ...);
    if (!real_open) real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    int fd = real_open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    char line[4200];
    int length = snprintf(line, sizeof line, "%d %s %s\n", (int)getpid(), what, path ? path : "-");
    if (length > 0) {
        ssize_t (*real_write)(int, const void *, size_t) = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
        real_write(fd, line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
    }
    close(fd);
}

// A random draw for PUSHKIT_FAULT_RANDOM: whether this call fails (xorshift64*, seeded per process).
static int random_fault(void) {
    static unsigned long long state = 0;
    static double probability = -1;
    if (probability < 0) {
        const char *text = getenv("PUSHKIT_FAULT_PROBABILITY");
        probability = text ? atof(text) : 0.05;
        const char *seed = getenv("PUSHKIT_FAULT_SEED");
        state = ((seed ? strtoull(seed, NULL, 10) : 1) * 0x9E3779B97F4A7C15ULL) ^ (unsigned long long)getpid();
        if (state == 0) state = 1;
    }
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    unsigned long long value = state * 0x2545F4914F6CDD1DULL;
    return (double)(value >> 11) / 9007199254740992.0 < probability;
}

// Whether `path` is under PUSHKIT_FAULT_RANDOM and this call draws a fault.
static int random_fault_at(const char *path) {
    const char *prefix = getenv("PUSHKIT_FAULT_RANDOM");
    if (prefix == NULL || *prefix == 0 || path == NULL || !active()) return 0;
    if (strncmp(path, prefix, strlen(prefix)) != 0) return 0;
    return random_fault();
}

// The path descriptor `fd` names, in `target` (empty when it cannot be told).
static void descriptor_path(int fd, char *target, size_t size) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, target, size - 1);
    target[length > 0 ? length : 0] = 0;
}

static int random_fault_on(int fd) {
    const char *prefix = getenv("PUSHKIT_FAULT_RANDOM");
    if (prefix == NULL || *prefix == 0) return 0;
    char target[4096];
    descriptor_path(fd, target, sizeof target);
    return random_fault_at(target);
}

static int ends_with(const char *text, const char *suffix) {
    if (text == NULL || suffix == NULL || *suffix == 0) return 0;
    if (strcmp(suffix, "*") == 0) return 1;
    size_t a = strlen(text), b = strlen(suffix);
    return a >= b && strcmp(text + a - b, suffix) == 0;
}

// open(2) of a path ending in PUSHKIT_FAULT_ENOENT: ENOENT, a limited number of times.
static int spurious_enoent(const char *path) {
    static int remaining = -1;
    const char *suffix = getenv("PUSHKIT_FAULT_ENOENT");
    if (!ends_with(path, suffix) || !active()) return 0;
    if (remaining < 0) {
        const char *count = getenv("PUSHKIT_FAULT_ENOENT_COUNT");
        remaining = count ? atoi(count) : 1;
    }
    if (remaining == 0) return 0;
    remaining -= 1;
    note("ENOENT open", path);
    errno = ENOENT;
    return 1;
}

// Whether this open of `path` fails (errno set): a spurious ENOENT, or a random fault (an open
// that would create the file gets EIO, another ENOENT or EIO).
static int open_fault(const char *path, int flags) {
    if (spurious_enoent(path)) return 1;
    if (!random_fault_at(path)) return 0;
    errno = (flags & O_CREAT) || random_fault() ? EIO : ENOENT;
    note(errno == ENOENT ? "random ENOENT open" : "random EIO open", path);
    return 1;
}

#define OPEN_WRAPPER(name)                                                                 \
    int name(const char *path, int flags, ...) {                                           \
        static int (*real)(const char *, int, ...);                                        \
        if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name);        \
        mode_t mode = 0;                                                                   \
        if (flags & (O_CREAT | O_TMPFILE)) {                                               \
            va_list arguments;                                                             \
            va_start(arguments, flags);                                                    \
            mode = va_arg(arguments, mode_t);                                              \
            va_end(arguments);                                                             \
        }                                                                                  \
        if (open_fault(path, flags)) return -1;                                            \
        return real(path, flags, mode);                                                    \
    }
OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)

#define OPENAT_WRAPPER(name)                                                               \
    int name(int directory, const char *path, int flags, ...) {                            \
        static int (*real)(int, const char *, int, ...);                                   \
        if (!real) real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, #name);   \
        mode_t mode = 0;                                                                   \
        if (flags & (O_CREAT | O_TMPFILE)) {                                               \
            va_list arguments;                                                             \
            va_start(arguments, flags);                                                    \
            mode = va_arg(arguments, mode_t);                                              \
            va_end(arguments);                                                             \
        }                                                                                  \
        if (open_fault(path, flags)) return -1;                                            \
        return real(directory, path, flags, mode);                                         \
    }
OPENAT_WRAPPER(openat)
OPENAT_WRAPPER(openat64)

int rename(const char *from, const char *to) {
    static int (*real)(const char *, const char *);
    static long calls = -1;
    if (!real) real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    const char *suffix = getenv("PUSHKIT_FAULT_RENAME");
    if (ends_with(to, suffix) && active()) {
        if (calls < 0) {
            const char *phase = getenv("PUSHKIT_FAULT_RENAME_PHASE");
            calls = phase ? atol(phase) : 0;
        }
        const char *every = getenv("PUSHKIT_FAULT_RENAME_EVERY");
        long period = every ? atol(every) : 2;
        calls += 1;
        if (period > 0 && calls % period == 0) {
            note("EIO rename", to);
            errno = EIO;
            return -1;
        }
    }
    if (random_fault_at(to)) {
        note("random EIO rename", to);
        errno = EIO;
        return -1;
    }
    return real(from, to);
}

// Whether descriptor `fd` names a file under PUSHKIT_FAULT_ENOSPC (a full disk there).
static int on_full_disk(int fd) {
    const char *prefix = getenv("PUSHKIT_FAULT_ENOSPC");
    if (prefix == NULL || *prefix == 0 || !active()) return 0;
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, target, sizeof target - 1);
    if (length <= 0) return 0;
    target[length] = 0;
    if (strncmp(target, prefix, strlen(prefix)) != 0) return 0;
    note("ENOSPC write", target);
    errno = ENOSPC;
    return 1;
}

// A write under PUSHKIT_FAULT_RANDOM that draws a fault: ENOSPC or EIO.
static int random_write_fault(int fd) {
    if (!random_fault_on(fd)) return 0;
    errno = random_fault() ? EIO : ENOSPC;
    note(errno == EIO ? "random EIO write" : "random ENOSPC write", "-");
    return 1;
}

ssize_t write(int fd, const void *buffer, size_t count) {
    static ssize_t (*real)(int, const void *, size_t);
    if (!real) real = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    if (count > 0 && (on_full_disk(fd) || random_write_fault(fd))) return -1;
    return real(fd, buffer, count);
}

#define PWRITE_WRAPPER(name, offset_type)                                                           \
    ssize_t name(int fd, const void *buffer, size_t count, offset_type offset) {                    \
        static ssize_t (*real)(int, const void *, size_t, offset_type);                             \
        if (!real) real = (ssize_t(*)(int, const void *, size_t, offset_type))dlsym(RTLD_NEXT, #name); \
        if (count > 0 && (on_full_disk(fd) || random_write_fault(fd))) return -1;                   \
        return real(fd, buffer, count, offset);                                                     \
    }
PWRITE_WRAPPER(pwrite, off_t)
PWRITE_WRAPPER(pwrite64, off64_t)

ssize_t writev(int fd, const struct iovec *vector, int count) {
    static ssize_t (*real)(int, const struct iovec *, int);
    if (!real) real = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
    if (count > 0 && on_full_disk(fd)) return -1;
    return real(fd, vector, count);
}

int posix_fallocate(int fd, off_t offset, off_t length) {
    static int (*real)(int, off_t, off_t);
    if (!real) real = (int (*)(int, off_t, off_t))dlsym(RTLD_NEXT, "posix_fallocate");
    if (length > 0 && on_full_disk(fd)) return ENOSPC;
    return real(fd, offset, length);
}

int posix_fallocate64(int fd, off64_t offset, off64_t length) {
    static int (*real)(int, off64_t, off64_t);
    if (!real) real = (int (*)(int, off64_t, off64_t))dlsym(RTLD_NEXT, "posix_fallocate64");
    if (length > 0 && on_full_disk(fd)) return ENOSPC;
    return real(fd, offset, length);
}

#define SYNC_WRAPPER(name)                                                                 \
    int name(int fd) {                                                                     \
        static int (*real)(int);                                                           \
        if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, #name);                           \
        if (random_fault_on(fd)) {                                                         \
            note("random EIO " #name, "-");                                                \
            errno = EIO;                                                                   \
            return -1;                                                                     \
        }                                                                                  \
        return real(fd);                                                                   \
    }
SYNC_WRAPPER(fsync)
SYNC_WRAPPER(fdatasync)
