/* The crowd key table of docs/scene-format.md, generated from the parameter table
 * (sim/core/crowd_params.h), so the document cannot drift from what the API and the parser check.
 *
 *   gen_crowd_params                 print the section
 *   gen_crowd_params --check FILE    exit 1 (with a diff hint) when FILE's section differs
 *   gen_crowd_params --write FILE    replace FILE's section with the generated one
 *
 * The section lies between the lines <!-- crowd-params:begin --> and <!-- crowd-params:end -->. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/crowd_params.h"

#define BEGIN_MARK "<!-- crowd-params:begin -->\n"
#define END_MARK   "<!-- crowd-params:end -->"

static const char *const k_model[] = {"both", "boids", "pedestrian"};

static void cell_default(char *buf, size_t size, const th_crowd_param *p, bool ped) {
    if (p->model == (ped ? TH_PARAM_BOIDS : TH_PARAM_PED)) snprintf(buf, size, "–");
    else if (p->note) snprintf(buf, size, "%s", p->note);
    else snprintf(buf, size, "%g", (double)(ped ? p->def_ped : p->def_boids));
}

/* The section's text, markers excluded; a static buffer. */
static const char *section(void) {
    static char out[16384];
    size_t n = 0;
#define PUT(...) n += (size_t)snprintf(out + n, sizeof out - n, __VA_ARGS__)
    PUT("<!-- Generated from sim/core/crowd_params.h by tests/gen_crowd_params.c; do not edit here.\n"
        "     Regenerate: build/release/tests/gen_crowd_params --write docs/scene-format.md -->\n");
    PUT("| key | unit | range | default (boids) | default (pedestrian) | applies to | meaning |\n");
    PUT("|---|---|---|---|---|---|---|\n");
    for (uint32_t i = 0; i < th_crowd_param_count; i++) {
        const th_crowd_param *p = &th_crowd_params[i];
        char range[64], db[96], dp[96];
        th_crowd_param_range(p, range, sizeof range);
        cell_default(db, sizeof db, p, false);
        cell_default(dp, sizeof dp, p, true);
        PUT("| `%s` | %s | %s | %s | %s | %s | %s |\n", p->key, p->unit[0] ? p->unit : "–", range,
            db, dp, k_model[p->model], p->doc);
    }
#undef PUT
    if (n >= sizeof out) {
        fprintf(stderr, "gen_crowd_params: section longer than %zu bytes\n", sizeof out);
        exit(2);
    }
    return out;
}

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    size_t got;
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = realloc(b, 2 * cap + 1);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (b) b[n] = '\0';
    *len = n;
    return b;
}

int main(int argc, char **argv) {
    const char *gen = section();
    if (argc == 1) {
        fputs(gen, stdout);
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "--check") != 0 && strcmp(argv[1], "--write") != 0)) {
        fprintf(stderr, "usage: %s [--check FILE | --write FILE]\n", argv[0]);
        return 2;
    }
    size_t len;
    char *doc = read_all(argv[2], &len);
    if (!doc) {
        fprintf(stderr, "%s: cannot read\n", argv[2]);
        return 2;
    }
    char *b = strstr(doc, BEGIN_MARK);
    char *e = b ? strstr(b, END_MARK) : NULL;
    if (!b || !e || strstr(e + 1, BEGIN_MARK)) {
        fprintf(stderr, "%s: expected one '%.27s' line followed by '%s'\n", argv[2], BEGIN_MARK,
                END_MARK);
        free(doc);
        return 2;
    }
    b += strlen(BEGIN_MARK);
    if (strcmp(argv[1], "--check") == 0) {
        const bool same = (size_t)(e - b) == strlen(gen) && memcmp(b, gen, strlen(gen)) == 0;
        if (!same) {
            fprintf(stderr,
                    "%s: the crowd parameter section differs from sim/core/crowd_params.h.\n"
                    "Regenerate it with: build/release/tests/gen_crowd_params --write %s\n"
                    "Expected:\n%s",
                    argv[2], argv[2], gen);
        }
        free(doc);
        return same ? 0 : 1;
    }
    FILE *f = fopen(argv[2], "wb");
    int rc = f && fwrite(doc, 1, (size_t)(b - doc), f) == (size_t)(b - doc) && fputs(gen, f) >= 0 &&
                     fputs(e, f) >= 0
                 ? 0
                 : 2;
    if (f && fclose(f) != 0) rc = 2;
    if (rc) fprintf(stderr, "%s: cannot write\n", argv[2]);
    free(doc);
    return rc;
}
