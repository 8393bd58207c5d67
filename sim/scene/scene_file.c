/* Files a scene names (map images, hazard tables): found relative to the scene file's folder
 * and, unless the user allowed otherwise, inside it, read whole. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/alloc.h"
#include "sim/core/error.h"
#include "sim/scene/scene_internal.h"

/* The file open at `fd`, whole, if it is a regular file of 1 to `max` bytes (closes `fd`). The
 * file was opened without blocking and is checked before reading: a scene naming a FIFO, a
 * terminal or /dev/zero must fail, not hang or fill memory. */
static unsigned char *read_fd(int fd, size_t max, size_t *len, char *why, size_t why_cap) {
    struct stat st;
    unsigned char *bytes = NULL;
    if (fstat(fd, &st) != 0) {
        snprintf(why, why_cap, "%s", strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_cap, "not a regular file");
    } else if ((uintmax_t)st.st_size > (uintmax_t)max) {
        snprintf(why, why_cap, "larger than %zu bytes", max);
    } else if (st.st_size == 0) {
        snprintf(why, why_cap, "the file is empty");
    } else if (!(bytes = th_alloc((size_t)st.st_size))) {
        snprintf(why, why_cap, "out of memory");
    } else {
        size_t got = 0, want = (size_t)st.st_size;
        while (got < want) {
            ssize_t r = read(fd, bytes + got, want - got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += (size_t)r;
        }
        if (got != want) { /* shrank while being read, or an I/O error */
            snprintf(why, why_cap, "read %zu of %zu bytes", got, want);
            th_free(bytes);
            bytes = NULL;
        }
        *len = got;
    }
    close(fd);
    return bytes;
}

const char *th_scene_outside_by_name(const char *name, size_t len) {
    if (name[0] == '/') return "an absolute path";
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && name[j] != '/') j++;
        if (j - i == 2 && name[i] == '.' && name[i + 1] == '.') return "a path with '..'";
        i = j + 1;
    }
    return NULL;
}

/* Opens `name` (relative, no `..`) below the folder of the scene file `scene`, one component
 * at a time without following symbolic links, so no link inside the folder can lead outside
 * it either: a link is reported as a link, and whatever it points at is never looked up.
 * Returns the descriptor, or -1 with `why` filled (and `*link` set for a link). */
static int open_inside(const char *scene, const char *name, char *why, size_t why_cap, bool *link) {
    *link = false;
    const char *slash = strrchr(scene, '/');
    char dir[2048];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == scene) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - scene), scene);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        snprintf(why, why_cap, "the scene's folder: %s", strerror(errno));
        return -1;
    }
    char part[1024];
    const char *p = name;
    for (;;) {
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n >= sizeof part) {
            close(dfd);
            snprintf(why, why_cap, "a path component longer than %zu bytes", sizeof part - 1);
            return -1;
        }
        memcpy(part, p, n);
        part[n] = '\0';
        if (end && (n == 0 || (n == 1 && part[0] == '.'))) { /* "a//b", "./b" */
            p = end + 1;
            continue;
        }
        int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (end ? O_DIRECTORY : O_NONBLOCK);
        int fd = openat(dfd, n ? part : ".", flags);
        int e = errno;
        if (fd < 0) {
            struct stat st;
            if (fstatat(dfd, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
                *link = true;
                snprintf(why, why_cap, "'%s' is a symbolic link", part);
            } else {
                snprintf(why, why_cap, "%s", strerror(e));
            }
            close(dfd);
            return -1;
        }
        close(dfd);
        if (!end) return fd;
        dfd = fd;
        p = end + 1;
    }
}

bool th_scene_read_file(const th_scene *s, const th_ynode *file, const char *path, const char *what,
                        size_t max_bytes, unsigned char **bytes, size_t *len, char *resolved,
                        size_t resolved_cap, th_error *err) {
    *bytes = NULL;
    *len = 0;
    if (file->kind != TH_Y_SCALAR || file->len == 0 || file->len > 1000 ||
        memchr(file->text, '\0', file->len)) {
        return th_scene_fail(s, file, path, err, "expected a %s file name, found %s", what,
                             file->kind != TH_Y_SCALAR ? "a collection"
                             : file->len == 0          ? "an empty value"
                             : file->len > 1000        ? "a name longer than 1000 characters"
                                                       : "a name with a NUL byte");
    }
    /* Relative to the scene file's folder, and inside it unless the user allowed otherwise:
     * a scene from elsewhere must not read /etc/shadow or probe which files exist. */
    const char *slash = strrchr(s->doc.path, '/');
    if (file->text[0] == '/' || !slash) snprintf(resolved, resolved_cap, "%s", file->text);
    else
        snprintf(resolved, resolved_cap, "%.*s/%s", (int)(slash - s->doc.path), s->doc.path,
                 file->text);
    char why[1100];
    int fd;
    if (s->allow_outside_paths) {
        fd = open(resolved, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) snprintf(why, sizeof why, "%s", strerror(errno));
    } else {
        const char *outside = th_scene_outside_by_name(file->text, file->len);
        if (outside) {
            return th_scene_fail(
                s, file, path, err,
                "expected a file inside the scene's folder, found %s (the command-line flag --allow-outside-paths permits it)",
                outside);
        }
        bool link;
        fd = open_inside(s->doc.path, file->text, why, sizeof why, &link);
        if (fd < 0 && link) {
            return th_scene_fail(
                s, file, path, err,
                "expected a file inside the scene's folder, found a symbolic link, which may lead outside it (the command-line flag --allow-outside-paths permits it)");
        }
    }
    *bytes = fd < 0 ? NULL : read_fd(fd, max_bytes, len, why, sizeof why);
    if (!*bytes)
        return th_scene_fail_code(s, file, path, err, TH_ERR_IO, "cannot read '%s': %s", resolved,
                                  why);
    if (s->file_read) s->file_read(s->file_read_user, resolved);
    return true;
}
