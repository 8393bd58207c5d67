#include "args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
