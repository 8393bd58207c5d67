/* The published measurements of `throng validate` (app/validate_data.c) against their second,
 * independent transcription in tests/data/validation_published.csv: the same sources, and each
 * value in one as often as in the other, so a typo in either fails. Then each table's citation
 * and provenance, and the band and bin look-ups against values worked out by hand. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/validate.h"
#include "test_util.h"

#ifndef THRONG_TEST_DATA
#define THRONG_TEST_DATA "tests/data"
#endif

#define MAX_CSV 1024

typedef struct csv_row {
    char source[64];
    double x0, x1, y;
    bool matched;
} csv_row;

static csv_row g_csv[MAX_CSV];
static size_t g_ncsv;

/* Read the CSV: '#' lines are comments, the header names the columns. */
static void read_csv(void) {
    const char *path = THRONG_TEST_DATA "/validation_published.csv";
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    char line[512];
    bool header = false;
    g_ncsv = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        if (!header) {
            ck_assert_str_eq(line, "source,x0,x1,value\n");
            header = true;
            continue;
        }
        ck_assert_uint_lt(g_ncsv, MAX_CSV);
        csv_row *r = &g_csv[g_ncsv++];
        char *comma = strchr(line, ',');
        ck_assert_msg(comma != NULL && (size_t)(comma - line) < sizeof r->source, "bad row: %s",
                      line);
        memcpy(r->source, line, (size_t)(comma - line));
        r->source[comma - line] = '\0';
        char *end = NULL;
        r->x0 = strtod(comma + 1, &end);
        ck_assert_msg(*end == ',', "bad x0: %s", line);
        r->x1 = strtod(end + 1, &end);
        ck_assert_msg(*end == ',', "bad x1: %s", line);
        r->y = strtod(end + 1, &end);
        ck_assert_msg(*end == '\n' || *end == '\0', "bad value: %s", line);
        r->matched = false;
    }
    fclose(f);
    ck_assert_msg(header, "no header in %s", path);
}

static bool same(double a, double b) { return fabs(a - b) < 1e-9; }

START_TEST(test_tables_match_csv) {
    read_csv();
    size_t rows = 0;
    for (size_t k = 0; k < th_val_table_count; k++) {
        const th_val_table *t = th_val_tables[k];
        for (size_t i = 0; i < t->n; i++) {
            const th_val_row *r = &t->rows[i];
            rows++;
            bool found = false;
            for (size_t j = 0; j < g_ncsv && !found; j++) {
                csv_row *c = &g_csv[j];
                if (c->matched || strcmp(c->source, t->id) != 0) continue;
                if (same(c->x0, r->x0) && same(c->x1, r->x1) && same(c->y, r->y)) {
                    c->matched = true;
                    found = true;
                }
            }
            ck_assert_msg(found, "%s: %g..%g -> %g is in the C table but not in the CSV", t->id,
                          r->x0, r->x1, r->y);
        }
    }
    for (size_t j = 0; j < g_ncsv; j++)
        ck_assert_msg(g_csv[j].matched, "%s: %g..%g -> %g is in the CSV but not in the C table",
                      g_csv[j].source, g_csv[j].x0, g_csv[j].x1, g_csv[j].y);
    ck_assert_uint_eq(rows, g_ncsv);
}
END_TEST

START_TEST(test_citations_and_provenance) {
    static const char *const kinds[] = {"TEXT", "TABLE", "FIG-DIGITISED", "DATA-DERIVED"};
    for (size_t k = 0; k < th_val_table_count; k++) {
        const th_val_table *t = th_val_tables[k];
        bool known = false;
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
            known |= strcmp(t->provenance, kinds[i]) == 0;
        ck_assert_msg(known, "%s: provenance '%s'", t->id, t->provenance);
        ck_assert_msg(strlen(t->citation) > 40 && strstr(t->citation, "\""), "%s: citation '%s'",
                      t->id, t->citation);
        ck_assert_msg(strlen(t->origin) > 20, "%s: origin", t->id);
        ck_assert_msg(t->n > 0 && t->label[0] && t->x_what[0] && t->y_what[0], "%s", t->id);
        ck_assert_ptr_eq(th_val_find(t->id), t);
        for (size_t i = 0; i < t->n; i++) {
            ck_assert_msg(t->rows[i].x1 >= t->rows[i].x0 && t->rows[i].y > 0.0, "%s row %zu", t->id,
                          i);
            /* Widths ascend (the interpolation looks for neighbours, but a typo'd width would
             * show as a step back). */
            if (i) ck_assert_msg(t->rows[i].x0 >= t->rows[i - 1].x0, "%s row %zu", t->id, i);
        }
    }
    ck_assert_ptr_null(th_val_find("nobody1999"));
}
END_TEST

START_TEST(test_band_by_hand) {
    double lo, hi;
    bool exact;
    /* Kretz at 1.0 m: four runs, 1.710 to 2.023. */
    ck_assert(th_val_range_at(th_val_find("kretz2006"), 1.0, &lo, &hi, &exact));
    ck_assert(exact);
    ck_assert_double_eq_tol(lo, 1.710, 1e-12);
    ck_assert_double_eq_tol(hi, 2.023, 1e-12);
    /* Daamen at 0.6 m: 0.1 / 0.35 of the way from 0.5 m (1.057, 1.114) to 0.85 m (2.28, 2.35):
     * 1.057 + 1.223 x 0.285714 = 1.406429 and 1.114 + 1.236 x 0.285714 = 1.467143. */
    ck_assert(th_val_range_at(th_val_find("daamen2010"), 0.6, &lo, &hi, &exact));
    ck_assert(!exact);
    ck_assert_double_eq_tol(lo, 1.406429, 1e-6);
    ck_assert_double_eq_tol(hi, 1.467143, 1e-6);
    /* Mueller at 1.0 m: a third of the way from 2.264 (0.9 m) to 2.751 (1.2 m): 2.426333. */
    ck_assert(th_val_range_at(th_val_find("mueller1981"), 1.0, &lo, &hi, NULL));
    ck_assert_double_eq_tol(lo, 2.426333, 1e-6);
    ck_assert_double_eq_tol(hi, lo, 1e-12);
    /* No extrapolation: Nagai starts at 0.8 m, Kretz ends at 1.2 m. */
    ck_assert(!th_val_range_at(th_val_find("nagai2006"), 0.5, &lo, &hi, NULL));
    ck_assert(!th_val_range_at(th_val_find("kretz2006"), 1.6, &lo, &hi, NULL));
    ck_assert(th_val_range_at(th_val_find("liao2014-fig"), 2.4, &lo, &hi, NULL));
    ck_assert_double_eq_tol(lo, 5.803, 1e-12);
}
END_TEST

START_TEST(test_bins) {
    const th_val_table *v = th_val_find("zhang2011-uo-v");
    ck_assert_double_eq_tol(th_val_bin(v, 0.49)->y, 1.49, 1e-12);
    ck_assert_double_eq_tol(th_val_bin(v, 0.5)->y, 1.42, 1e-12);
    ck_assert_double_eq_tol(th_val_bin(v, 3.99)->y, 0.16, 1e-12);
    ck_assert_ptr_null(th_val_bin(v, 4.0));
    /* The maxima of the two corridors' specific flows: 1.75 one way, 1.36 both ways. */
    ck_assert_double_eq_tol(th_val_max(th_val_find("zhang2011-uo-js")), 1.75, 1e-12);
    ck_assert_double_eq_tol(th_val_max(th_val_find("zhang2012-bo-js")), 1.36, 1e-12);
}
END_TEST

static Suite *validate_data_suite(void) {
    Suite *s = suite_create("validate_data");
    TCase *tc = tcase_create("data");
    tcase_add_test(tc, test_tables_match_csv);
    tcase_add_test(tc, test_citations_and_provenance);
    tcase_add_test(tc, test_band_by_hand);
    tcase_add_test(tc, test_bins);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return th_test_run(validate_data_suite()); }
