#include "args.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "throng/throng.h"

bool th_arg_u64(const char *flag, const char *text, uint64_t lo, uint64_t hi, uint64_t *out) {
    char *end = NULL;
    errno = 0;
    unsigned long long v = 0;
    bool ok = text[0] >= '0' && text[0] <= '9';
    if (ok) {
        v = strtoull(text, &end, 10);
        ok = errno == 0 && end && *end == '\0' && v >= lo && v <= hi;
    }
    if (!ok) {
        fprintf(stderr, "throng: %s: expected an integer in [%llu, %llu], got '%s'\n", flag,
                (unsigned long long)lo, (unsigned long long)hi, text);
        return false;
    }
    *out = v;
    return true;
}

const char *th_arg_value(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "throng: %s needs a value (see 'throng run --help')\n", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

int th_arg_flag(const char *cmd, int argc, char **argv, int *i, const char *name, bool takes_value,
                const char **value) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0 || (a[n] != '\0' && a[n] != '=')) return 0;
    if (a[n] == '=') {
        if (!takes_value) {
            fprintf(stderr, "%s: %s takes no value, got '%s'\n", cmd, name, a);
            return -1;
        }
        *value = a + n + 1;
        return 1;
    }
    if (!takes_value) return 1;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value (see '%s --help')\n", cmd, name, cmd);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

bool th_arg_selected(const char *only, const char *id) {
    if (!only) return true;
    const char *p = only;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char pat[128];
        if (len > 0 && len < sizeof pat) {
            memcpy(pat, p, len);
            pat[len] = '\0';
            if (fnmatch(pat, id, 0) == 0) return true;
        }
        if (!e) break;
        p = e + 1;
    }
    return false;
}

/* The value of --only or --json: not empty. */
static bool nonempty(const char *cmd, const char *flag, const char *what, const char *v) {
    if (v[0]) return true;
    fprintf(stderr, "%s: %s needs %s, got ''\n", cmd, flag, what);
    return false;
}

int th_suite_args_parse(const char *cmd, int argc, char **argv, uint64_t max_seeds,
                        th_suite_args *out) {
    *out = (th_suite_args){0};
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            out->help = true;
            return 0;
        }
    }
    const char *word = strncmp(cmd, "throng ", 7) == 0 ? cmd + 7 : cmd;
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        int m;
        if ((m = th_arg_flag(cmd, argc, argv, &i, "--only", true, &v))) {
            if (m < 0 || !nonempty(cmd, "--only", "a pattern", v)) return TH_EXIT_USAGE;
            out->only = v;
        } else if ((m = th_arg_flag(cmd, argc, argv, &i, "--json", true, &v))) {
            if (m < 0 || !nonempty(cmd, "--json", "a file name", v)) return TH_EXIT_USAGE;
            out->json = v;
        } else if ((m = th_arg_flag(cmd, argc, argv, &i, "--threads", true, &v))) {
            if (m < 0 || !th_arg_u64("--threads", v, 0, TH_MAX_THREADS, &out->threads))
                return TH_EXIT_USAGE;
        } else if (max_seeds > 0 && (m = th_arg_flag(cmd, argc, argv, &i, "--seeds", true, &v))) {
            if (m < 0 || !th_arg_u64("--seeds", v, 1, max_seeds, &out->seeds)) return TH_EXIT_USAGE;
        } else if ((m = th_arg_flag(cmd, argc, argv, &i, "--list", false, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            out->list = true;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "%s: unknown option '%s' (see '%s --help')\n", cmd, argv[i], cmd);
            return TH_EXIT_USAGE;
        } else {
            fprintf(stderr, "%s: unexpected argument '%s': %s takes no scene (see '%s --help')\n",
                    cmd, argv[i], word, cmd);
            return TH_EXIT_USAGE;
        }
    }
    return 0;
}

uint32_t th_arg_cores(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    if (n > TH_MAX_THREADS) n = TH_MAX_THREADS;
    return (uint32_t)n;
}
